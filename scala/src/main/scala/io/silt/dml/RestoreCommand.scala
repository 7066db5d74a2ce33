package io.silt.dml

import io.silt.log.{TableFeatures, TableLog, TablePaths}
import io.silt.read.TimeTravel
import io.silt.sql.TableRef
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/**
 * RESTORE TABLE t TO VERSION AS OF n | TIMESTAMP AS OF ts: one commit that re-adds the files of
 * the old version the table no longer has and removes the files it did not have then. Fails if
 * a re-added file has been vacuumed away.
 */
final case class RestoreCommand(table: TableRef, target: TimeTravel) extends LeafRunnableCommand {
  override val output: Seq[Attribute] = Seq("table_size_after_restore", "num_of_files_after_restore",
    "num_removed_files", "num_restored_files", "removed_files_size", "restored_files_size")
    .map(n => AttributeReference(n, LongType, nullable = false)())

  override def run(spark: SparkSession): Seq[Row] = {
    val log = TableLog.forPath(spark, table.path(spark).toString)
    val txn = OptimisticTransaction.start(spark, log)
    val current = txn.readSnapshot.get
    TableFeatures.checkWritable(current.tablePath.toString, current.protocol, current.metadata)
    val old = target.snapshot(log)
    def key(a: io.silt.log.AddFile) = (TablePaths.canonical(log.tablePath, a.path), a.deletionVector.map(_.uniqueId))
    val currentKeys = current.files.map(key).toSet
    val oldKeys = old.files.map(key).toSet
    val toRestore = old.files.filterNot(a => currentKeys.contains(key(a)))
    val toRemove = current.files.filterNot(a => oldKeys.contains(key(a)))
    val fs = log.tablePath.getFileSystem(log.hadoopConf)
    toRestore.find(a => !fs.exists(old.filePath(a))).foreach { a =>
      throw new io.silt.errors.InvalidTableOperationException(s"cannot restore ${log.tablePath} to version ${old.version}: " +
        s"its data file ${a.path} has been deleted (by VACUUM)")
    }
    txn.filesInPartitions(Nil)
    if (old.metadata != current.metadata) txn.updateMetadata(old.metadata)
    val now = System.currentTimeMillis()
    val metrics = Map(
      "tableSizeAfterRestore" -> old.sizeInBytes, "numOfFilesAfterRestore" -> old.numFiles.toLong,
      "numRemovedFiles" -> toRemove.size.toLong, "numRestoredFiles" -> toRestore.size.toLong,
      "removedFilesSize" -> toRemove.map(_.size).sum, "restoredFilesSize" -> toRestore.map(_.size).sum)
    if (toRestore.nonEmpty || toRemove.nonEmpty || old.metadata != current.metadata) {
      txn.commit(toRemove.map(_.remove(now)) ++ toRestore.map(_.copy(dataChange = true)),
        Operation("RESTORE", Map("version" -> old.version.toString), metrics))
    }
    Seq(Row(metrics("tableSizeAfterRestore"), metrics("numOfFilesAfterRestore"), metrics("numRemovedFiles"),
      metrics("numRestoredFiles"), metrics("removedFilesSize"), metrics("restoredFilesSize")))
  }
}
