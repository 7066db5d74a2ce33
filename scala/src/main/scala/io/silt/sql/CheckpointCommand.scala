package io.silt.sql

import io.silt.checkpoint.Checkpoints
import io.silt.log.TableLog
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.{LongType, StringType}

/** CHECKPOINT table: writes a checkpoint of the current version now; returns (path, version). */
final case class CheckpointCommand(table: TableRef) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq(AttributeReference("path", StringType, nullable = false)(),
    AttributeReference("version", LongType, nullable = false)())

  override def run(spark: SparkSession): Seq[Row] = {
    val log = TableLog.forPath(spark, table.path(spark).toString)
    val written = Checkpoints.checkpoint(spark, log, log.latest())
    Seq(Row(log.tablePath.toString, written.version))
  }
}
