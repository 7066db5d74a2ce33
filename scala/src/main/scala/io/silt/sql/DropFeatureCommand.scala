package io.silt.sql

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/** ALTER TABLE t DROP FEATURE name [TRUNCATE HISTORY]. */
final case class DropFeatureCommand(table: TableRef, feature: String, truncateHistory: Boolean) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    DropFeature.run(spark, table.path(spark), feature, truncateHistory)
    Nil
  }
}
