package io.silt.dml

import io.silt.write.WriteOptions
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/**
 * A DELETE, UPDATE or MERGE on a Silt table: resolves the target, names its Spark jobs, and
 * honours the session's idempotent-write settings (a version already committed for the session's
 * txnAppId skips the command; the version is cleared once used).
 */
abstract class RowLevelCommand(operation: String, outputColumns: Seq[String]) extends LeafRunnableCommand with Logging {
  def target: LogicalPlan

  override lazy val output: Seq[Attribute] = outputColumns.map(n => AttributeReference(n, LongType, nullable = false)())

  override def run(spark: SparkSession): Seq[Row] = {
    val DmlTarget(t) = target
    WriteOptions.refuseDeltaSettings(spark)
    val appTxn = WriteOptions.sessionAppTransaction(spark)
    val rows = if (appTxn.exists(WriteOptions.alreadyCommitted(_, t.snapshot.transactions))) {
      logWarning(s"Silt: skipped $operation on ${t.snapshot.tablePath}: application '${appTxn.get.appId}' already " +
        s"committed transaction version ${t.snapshot.transactions(appTxn.get.appId).version}")
      Seq(Row.fromSeq(outputColumns.map(_ => 0L)))
    } else io.silt.sql.JobDescription(spark, s"$operation ${t.snapshot.tablePath.getName}")(execute(spark, t))
    if (appTxn.isDefined) spark.conf.unset(WriteOptions.TxnVersionKey)
    rows
  }

  protected def execute(spark: SparkSession, t: DmlTarget): Seq[Row]
}
