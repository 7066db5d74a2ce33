package io.silt.sql

import io.silt.spark.JobDescription
import io.silt.vacuum.{Vacuum, VacuumMode}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.StringType

/**
 * VACUUM table [LITE | FULL] [USING INVENTORY …] [RETAIN n HOURS] [DRY RUN]: a dry run lists the
 * files; a real run returns the table path. `inventory` is the query giving the inventory's rows.
 */
final case class VacuumCommand(table: TableRef, retentionHours: Option[Double], dryRun: Boolean, mode: VacuumMode,
    inventory: Option[String] = None) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(AttributeReference("path", StringType)())

  override def run(spark: SparkSession): Seq[Row] = {
    val path = table.path(spark)
    val result = JobDescription(spark, s"VACUUM ${path.getName} ${mode.name}${if (dryRun) " DRY RUN" else ""}")(
      Vacuum.run(spark, path, retentionHours, dryRun, mode, inventory.map(spark.sql)))
    if (dryRun) result.files.map(Row(_)) else Seq(Row(path.toString))
  }
}
