package io.silt.dml

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/** A DELETE, UPDATE or MERGE on a Silt table: resolves the target and names its Spark jobs. */
abstract class RowLevelCommand(operation: String, outputColumns: Seq[String]) extends LeafRunnableCommand {
  def target: LogicalPlan

  override lazy val output: Seq[Attribute] = outputColumns.map(n => AttributeReference(n, LongType, nullable = false)())

  override def run(spark: SparkSession): Seq[Row] = {
    val DmlTarget(t) = target
    io.silt.sql.JobDescription(spark, s"$operation ${t.snapshot.tablePath.getName}")(execute(spark, t))
  }

  protected def execute(spark: SparkSession, t: DmlTarget): Seq[Row]
}
