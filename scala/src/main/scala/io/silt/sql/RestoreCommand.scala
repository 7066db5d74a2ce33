package io.silt.sql

import io.silt.dml.Restore
import io.silt.read.TimeTravel
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/** RESTORE TABLE t TO VERSION AS OF n | TIMESTAMP AS OF ts; returns Delta's six metrics. */
final case class RestoreCommand(table: TableRef, target: TimeTravel) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq("table_size_after_restore", "num_of_files_after_restore",
    "num_removed_files", "num_restored_files", "removed_files_size", "restored_files_size")
    .map(n => AttributeReference(n, LongType)())

  override def run(spark: SparkSession): Seq[Row] = {
    val m = Restore.run(spark, table.path(spark), target)
    Seq(Row(m.tableSizeAfterRestore, m.numOfFilesAfterRestore, m.numRemovedFiles, m.numRestoredFiles,
      m.removedFilesSize, m.restoredFilesSize))
  }
}
