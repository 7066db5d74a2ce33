package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.log.{Action, AddFile, ActionCodec, Snapshot}
import io.silt.spark.Identifiers
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.write.DataFileWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, lit}
import org.apache.spark.storage.StorageLevel

/** What a row-level command changed, for its result row and operationMetrics. */
final case class RowLevelMetrics(
    updated: Long, deleted: Long, inserted: Long, copied: Long,
    filesAdded: Long, filesRemoved: Long, dvsAdded: Long, dvsRemoved: Long, dvsUpdated: Long) {
  def affected: Long = updated + deleted + inserted
  def toMap: Map[String, Long] = Map(
    "numUpdatedRows" -> updated, "numDeletedRows" -> deleted, "numInsertedRows" -> inserted,
    "numCopiedRows" -> copied, "numAddedFiles" -> filesAdded, "numRemovedFiles" -> filesRemoved,
    "numDeletionVectorsAdded" -> dvsAdded, "numDeletionVectorsRemoved" -> dvsRemoved,
    "numDeletionVectorsUpdated" -> dvsUpdated)
}

/**
 * Commits the changes of a DELETE, UPDATE or MERGE given as a [[RowChanges]] plan. With
 * deletion vectors on (`delta.enableDeletionVectors`), changed target rows are marked in DVs and
 * only new rows are written; otherwise every touched file is rewritten (copy-on-write).
 */
object RowLevelWriter {

  /**
   * `rowsByFile`: each task of `changes` holds all the changed rows of the files it holds (see
   * [[RowDeletion]]); `operation`: the operation committed, given its metrics.
   */
  def commit(spark: SparkSession, txn: OptimisticTransaction, snapshot: Snapshot, candidates: Seq[AddFile],
      changes: DataFrame, mayWriteRows: Boolean, operation: Map[String, Long] => Operation,
      rowsByFile: Boolean = false): RowLevelMetrics = {
    val byPath = candidates.map(a => snapshot.filePath(a).toUri.toString -> a).toMap
    val tableColumns = snapshot.metadata.schema.fieldNames.toSeq
    val action = col(RowChanges.ActionColumn)
    val cached = if (mayWriteRows) changes.persist(StorageLevel.MEMORY_AND_DISK) else changes
    try {
      val counts = if (mayWriteRows) cached.groupBy(action).count().collect().map(r => RowChange.fromCode(r.getInt(0)) -> r.getLong(1)).toMap
                   else Map.empty[RowChange, Long]
      val (actions, metrics) = if (DeletionVectors.enabled(snapshot)) {
        withDeletionVectors(spark, snapshot, byPath, cached, mayWriteRows, tableColumns, counts, rowsByFile)
      } else copyOnWrite(spark, snapshot, byPath, cached, tableColumns, counts)
      if (actions.nonEmpty) {
        txn.commit(actions, operation(metrics.toMap))
      }
      metrics
    } finally if (mayWriteRows) cached.unpersist()
  }

  private def withDeletionVectors(spark: SparkSession, snapshot: Snapshot, byPath: Map[String, AddFile],
      changes: DataFrame, mayWriteRows: Boolean, columns: Seq[String], counts: Map[RowChange, Long], rowsByFile: Boolean) = {
    val action = col(RowChanges.ActionColumn)
    val marked = changes.where(action.isin(RowChange.Update.code, RowChange.Delete.code))
      .select(RowChanges.PathColumn, RowChanges.RowIndexColumn)
    val current = byPath.collect { case (p, a) if a.deletionVector.isDefined => p -> a.deletionVector.get }
    val deletions = RowDeletion.markDeleted(spark, snapshot.tablePath, marked, current, rowsByFile)
    val now = System.currentTimeMillis()
    var (filesRemoved, dvsAdded, dvsRemoved, dvsUpdated) = (0L, 0L, 0L, 0L)
    val dvActions: Seq[Action] = deletions.flatMap { d =>
      val add = byPath.getOrElse(d.filePath, throw new IllegalStateException(s"row from unknown file ${d.filePath}"))
      val remove = add.remove(now)
      if (add.numPhysicalRecords.contains(d.dv.cardinality)) {
        // every row is gone: drop the file instead of keeping it with an all-covering DV
        filesRemoved += 1
        if (add.deletionVector.isDefined) dvsRemoved += 1
        Seq(remove)
      } else {
        if (add.deletionVector.isDefined) dvsUpdated += 1 else dvsAdded += 1
        Seq(remove, add.copy(deletionVector = Some(d.dv), stats = add.stats.map(looseBounds), dataChange = true))
      }
    }
    val written = if (mayWriteRows && (counts.getOrElse(RowChange.Update, 0L) + counts.getOrElse(RowChange.Insert, 0L)) > 0) {
      DataFileWriter.write(spark, snapshot.tablePath,
        changes.where(action.isin(RowChange.Update.code, RowChange.Insert.code)).select(columns.map(Identifiers.column): _*), snapshot.metadata)
    } else Nil
    val metrics = RowLevelMetrics(
      updated = counts.getOrElse(RowChange.Update, 0L),
      deleted = if (mayWriteRows) counts.getOrElse(RowChange.Delete, 0L) else deletions.map(_.newlyDeleted).sum,
      inserted = counts.getOrElse(RowChange.Insert, 0L), copied = 0L,
      filesAdded = written.size, filesRemoved = filesRemoved,
      dvsAdded = dvsAdded, dvsRemoved = dvsRemoved, dvsUpdated = dvsUpdated)
    (dvActions ++ written, metrics)
  }

  private def copyOnWrite(spark: SparkSession, snapshot: Snapshot, byPath: Map[String, AddFile],
      changes: DataFrame, columns: Seq[String], counts: Map[RowChange, Long]) = {
    val action = col(RowChanges.ActionColumn)
    val touchedPaths = changes.where(action.isin(RowChange.Update.code, RowChange.Delete.code))
      .select(RowChanges.PathColumn).distinct().collect().map(_.getString(0)).toSet
    val touched = touchedPaths.toSeq.map(p => byPath.getOrElse(p, throw new IllegalStateException(s"row from unknown file $p")))
    val keep = changes.where(
      (col(RowChanges.PathColumn).isin(touchedPaths.toSeq: _*) && action.isin(RowChange.Keep.code, RowChange.Update.code)) ||
        action === lit(RowChange.Insert.code))
    val written = if (touched.isEmpty && counts.getOrElse(RowChange.Insert, 0L) == 0L) Nil
      else DataFileWriter.write(spark, snapshot.tablePath, keep.select(columns.map(Identifiers.column): _*), snapshot.metadata)
    // Rows copied unchanged = rows written less the new versions and inserts (no extra pass over the data).
    val writtenRows = written.flatMap(_.numPhysicalRecords).sum
    val copied = writtenRows - counts.getOrElse(RowChange.Update, 0L) - counts.getOrElse(RowChange.Insert, 0L)
    val now = System.currentTimeMillis()
    val touchedRows = touched.map(_.numLogicalRecords.getOrElse(0L)).sum
    val deleted = if (counts.nonEmpty) counts.getOrElse(RowChange.Delete, 0L) else touchedRows - copied
    val metrics = RowLevelMetrics(counts.getOrElse(RowChange.Update, 0L), deleted,
      counts.getOrElse(RowChange.Insert, 0L), copied, written.size, touched.size, 0, 0, 0)
    (touched.map(_.remove(now)) ++ written, metrics)
  }

  /** Statistics of a file with a DV: min/max become bounds, null counts upper bounds. */
  private def looseBounds(stats: String): String = {
    val node = ActionCodec.mapper.readTree(stats).asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]
    node.put("tightBounds", false)
    ActionCodec.mapper.writeValueAsString(node)
  }
}
