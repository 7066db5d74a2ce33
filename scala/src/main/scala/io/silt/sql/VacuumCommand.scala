package io.silt.sql

import io.silt.spark.JobDescription
import io.silt.vacuum.Vacuum
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.StringType

/** VACUUM table [RETAIN n HOURS] [DRY RUN]: a dry run lists the files; a real run returns the table path. */
final case class VacuumCommand(table: TableRef, retentionHours: Option[Double], dryRun: Boolean) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(AttributeReference("path", StringType, nullable = false)())

  override def run(spark: SparkSession): Seq[Row] = {
    val path = table.path(spark)
    val result = JobDescription(spark, s"VACUUM ${path.getName}${if (dryRun) " DRY RUN" else ""}")(
      Vacuum.run(spark, path, retentionHours, dryRun))
    if (dryRun) result.files.map(Row(_)) else Seq(Row(path.toString))
  }
}
