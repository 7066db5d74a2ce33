package io.silt.dml

import io.silt.spark.JobDescription
import io.silt.txn.OptimisticTransaction
import io.silt.write.{CatalogEntries, IdempotentWrites, WriteOptions}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/**
 * A DELETE, UPDATE or MERGE on a Silt table: resolves the target, names its Spark jobs, and
 * honours the session's idempotent-write settings (a version already committed for the session's
 * txnAppId skips the command; the version is cleared once used); a catalog table's entry follows
 * the columns a MERGE added.
 */
abstract class RowLevelCommand(operation: String, outputColumns: Seq[String]) extends LeafRunnableCommand {
  def target: LogicalPlan

  override lazy val output: Seq[Attribute] = outputColumns.map(n => AttributeReference(n, LongType)())

  override def run(spark: SparkSession): Seq[Row] = {
    val DmlTarget(t) = target
    val txn = t.startTransaction(spark)
    val rows = IdempotentWrites.run(spark, txn, WriteOptions.sessionAppTransaction(spark))(Seq(Row.fromSeq(outputColumns.map(_ => 0L)))) {
      JobDescription(spark, s"$operation ${t.snapshot.tablePath.getName}")(execute(spark, t, txn))
    }
    // MERGE WITH SCHEMA EVOLUTION added columns: a catalog table's entry follows
    if (txn.metadataChanged) t.relation.catalogTable.foreach(CatalogEntries.sync(spark, _, txn.log.latest()))
    rows
  }

  /** Does the command's work in `txn`, which commits it. */
  protected def execute(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row]
}
