package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.{AddFile, TablePaths}
import io.silt.features.TableFeatures
import io.silt.log.TableLog
import io.silt.read.TimeTravel
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/** What a RESTORE did, as DESCRIBE HISTORY's operationMetrics and the statement's result row say. */
final case class RestoreMetrics(tableSizeAfterRestore: Long, numOfFilesAfterRestore: Long, numRemovedFiles: Long,
    numRestoredFiles: Long, removedFilesSize: Long, restoredFilesSize: Long) {
  def toMap: Map[String, Long] = Map(
    "tableSizeAfterRestore" -> tableSizeAfterRestore, "numOfFilesAfterRestore" -> numOfFilesAfterRestore,
    "numRemovedFiles" -> numRemovedFiles, "numRestoredFiles" -> numRestoredFiles,
    "removedFilesSize" -> removedFilesSize, "restoredFilesSize" -> restoredFilesSize)
}

/**
 * RESTORE: one commit that re-adds the files of the old version the table no longer has and
 * removes the files it did not have then (an empty commit when they are the same). Fails if a re-added
 * file has been vacuumed away.
 */
object Restore {
  def run(spark: SparkSession, tablePath: Path, target: TimeTravel): RestoreMetrics = {
    val log = TableLog.forPath(spark, tablePath.toString)
    val txn = OptimisticTransaction.start(spark, log)
    val current = txn.readSnapshot.get
    TableFeatures.checkWritable(current.tablePath.toString, current.protocol, current.metadata)
    val old = target.snapshot(log)
    def key(a: AddFile) = (TablePaths.canonical(log.tablePath, a.path), a.deletionVector.map(_.uniqueId))
    val currentKeys = current.files.map(key).toSet
    val oldKeys = old.files.map(key).toSet
    val toRestore = old.files.filterNot(a => currentKeys.contains(key(a)))
    val toRemove = current.files.filterNot(a => oldKeys.contains(key(a)))
    val fs = log.tablePath.getFileSystem(log.hadoopConf)
    toRestore.find(a => !fs.exists(old.filePath(a))).foreach { a =>
      throw new InvalidTableOperationException(s"cannot restore ${log.tablePath} to version ${old.version}: " +
        s"its data file ${a.path} has been deleted (by VACUUM)")
    }
    txn.filesInPartitions(Nil)
    if (old.metadata != current.metadata) txn.updateMetadata(old.metadata, replacingTable = true)
    val now = System.currentTimeMillis()
    val metrics = RestoreMetrics(old.sizeInBytes, old.numFiles.toLong, toRemove.size.toLong, toRestore.size.toLong,
      toRemove.map(_.size).sum, toRestore.map(_.size).sum)
    // Committed even when nothing changes (the content is already the old version's), as Delta does:
    // the history then says the RESTORE ran, and to which version.
    txn.commit(toRemove.map(_.remove(now)) ++ toRestore.map(_.copy(dataChange = true)),
      Operation.Restore(old.version, target match {
        case TimeTravel.AsOfTimestamp(ms) => Some(new java.sql.Timestamp(ms).toString)
        case _ => None
      }, metrics.toMap))
    metrics
  }
}
