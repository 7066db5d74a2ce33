package io.silt.dml

import io.silt.actions.{Action, ActionCodec, AddCDCFile, AddFile, RemoveFile}
import io.silt.config.SiltSettings
import io.silt.features.ChangeDataFeed
import io.silt.log.Snapshot
import io.silt.spark.Identifiers
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.write.{ChangeDataWriter, DataFileWriter, IdentityColumnWrites, OptimizedWrite, RowTrackingWrites}
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.col
import org.apache.spark.storage.StorageLevel

/** What a row-level command changed, for its result row and, in Delta Lake's names, its operationMetrics. */
final case class RowLevelMetrics(
    updated: Long, deleted: Long, inserted: Long, copied: Long,
    filesAdded: Long, filesRemoved: Long, dvsAdded: Long, dvsRemoved: Long, dvsUpdated: Long,
    bytesAdded: Long = 0L, bytesRemoved: Long = 0L, changeFilesAdded: Long = 0L, timings: DmlTimings = DmlTimings()) {
  def affected: Long = updated + deleted + inserted

  private def files(prefix: String): Map[String, Long] = Map(
    s"num${prefix}FilesAdded" -> filesAdded, s"num${prefix}FilesRemoved" -> filesRemoved,
    s"num${prefix}BytesAdded" -> bytesAdded, s"num${prefix}BytesRemoved" -> bytesRemoved,
    s"num${prefix}ChangeFilesAdded" -> changeFilesAdded, s"num${prefix}DeletionVectorsAdded" -> dvsAdded,
    s"num${prefix}DeletionVectorsRemoved" -> dvsRemoved, s"num${prefix}DeletionVectorsUpdated" -> dvsUpdated)

  /** DELETE's and UPDATE's metrics, as Delta Lake names them. */
  private def rewritten: Map[String, Long] = Map("numAddedFiles" -> filesAdded, "numRemovedFiles" -> filesRemoved,
    "numAddedBytes" -> bytesAdded, "numRemovedBytes" -> bytesRemoved, "numAddedChangeFiles" -> changeFilesAdded,
    "numCopiedRows" -> copied, "numDeletionVectorsAdded" -> dvsAdded, "numDeletionVectorsRemoved" -> dvsRemoved,
    "numDeletionVectorsUpdated" -> dvsUpdated)
  def deleteMetrics: Map[String, Long] = rewritten ++ timings.toMap + ("numDeletedRows" -> deleted)
  def updateMetrics: Map[String, Long] = rewritten ++ timings.toMap + ("numUpdatedRows" -> updated)
  def mergeMetrics: Map[String, Long] = files("Target") ++ timings.toMap ++ Map("numTargetRowsInserted" -> inserted,
    "numTargetRowsUpdated" -> updated, "numTargetRowsDeleted" -> deleted, "numTargetRowsCopied" -> copied,
    "numOutputRows" -> (inserted + updated + copied))

  /** With the bytes and change data files of the commit's `actions` counted. */
  def withSizesOf(actions: Seq[Action]): RowLevelMetrics = {
    val removed = actions.collect { case r: RemoveFile => r.path -> r.size.getOrElse(0L) }.toMap
    val added = actions.collect { case a: AddFile => a.path -> a.size }.toMap
    // a file kept with a new deletion vector is removed and added again: neither counts
    copy(bytesAdded = added.collect { case (p, size) if !removed.contains(p) => size }.sum,
      bytesRemoved = removed.collect { case (p, size) if !added.contains(p) => size }.sum,
      changeFilesAdded = actions.count(_.isInstanceOf[AddCDCFile]).toLong)
  }
}

/**
 * Where a DML statement's time went, in Delta Lake's names: `scanTimeMs` finding the rows it changes,
 * `rewriteTimeMs` writing new files and deletion vectors, `executionTimeMs` both and the commit's
 * preparation (from the first scan of the table's files; planning before it is not counted).
 */
final case class DmlTimings(scanTimeMs: Long = 0L, rewriteTimeMs: Long = 0L, executionTimeMs: Long = 0L) {
  def toMap: Map[String, Long] =
    Map("scanTimeMs" -> scanTimeMs, "rewriteTimeMs" -> rewriteTimeMs, "executionTimeMs" -> executionTimeMs)
}

object DmlTimings {
  /** The timings of a statement that started at `startedNs`, found its rows by `scannedNs` and is done writing now. */
  def since(startedNs: Long, scannedNs: Long): DmlTimings = {
    val now = System.nanoTime()
    def ms(ns: Long) = ns / 1000000L
    DmlTimings(ms(scannedNs - startedNs), ms(now - scannedNs), ms(now - startedNs))
  }
}

/** How many rows of each kind a command changes. */
final case class RowCounts(updated: Long, deleted: Long, inserted: Long)

object RowCounts {
  def of(byKind: Map[RowChange, Long]): RowCounts = RowCounts(
    byKind.getOrElse(RowChange.Update, 0L), byKind.getOrElse(RowChange.Delete, 0L), byKind.getOrElse(RowChange.Insert, 0L))
}

/**
 * Commits the changes of a DELETE, UPDATE or MERGE. With deletion vectors on
 * (`delta.enableDeletionVectors`), changed target rows are marked in DVs and only new rows are
 * written; otherwise every touched file is rewritten (copy-on-write). With the change data feed on,
 * the commit also carries change data files of its rows ([[ChangeRows]]).
 */
object RowLevelWriter {
  private val action = col(RowChanges.ActionColumn)
  private def actionIn(kinds: RowChange*): Column = action.isin(kinds.map(_.code): _*)

  /**
   * Commits a [[RowChanges]] plan over the given files (`changesOver(files)`; a plan over fewer
   * files must give the same rows for those files, and the same new rows).
   *
   * With deletion vectors the plan is evaluated once over all candidates (cached when it may write
   * rows). Copy-on-write evaluates it twice and caches nothing: first only the columns that decide
   * each row's change, to find the touched files and count the changes, then over the touched
   * files alone to write them; a DELETE whose sample of the candidates all lose rows skips the
   * first pass ([[TouchedFiles]]).
   *
   * `rowsByFile`: each task of the plan holds all the changed rows of the files it holds (see
   * [[RowDeletion]]); `operation`: the operation committed, given its metrics; `onlyMarkedRows`: the
   * command depends on no row of the files it reads but those it changes (see
   * [[OptimisticTransaction.readOnlyMarkedRows]]).
   */
  def commit(spark: SparkSession, txn: OptimisticTransaction, snapshot: Snapshot, candidates: Seq[AddFile],
      changesOver: Seq[AddFile] => DataFrame, mayWriteRows: Boolean, operation: RowLevelMetrics => Operation,
      onlyMarkedRows: Boolean, rowsByFile: Boolean = false): RowLevelMetrics = {
    val startedNs = System.nanoTime()
    val feed = ChangeDataFeed.enabled(snapshot.metadata)
    if (DeletionVectors.enabled(snapshot)) {
      val changes = changesOver(candidates)
      val persist = mayWriteRows || feed
      val cached = if (persist) changes.persist(StorageLevel.MEMORY_AND_DISK) else changes
      try {
        val counts = if (mayWriteRows) Some(countByKind(cached)) else None
        val marked = cached.where(actionIn(RowChange.Update, RowChange.Delete))
          .select(RowChanges.PathColumn, RowChanges.RowIndexColumn)
        val newRows = if (mayWriteRows) Some(cached.where(actionIn(RowChange.Update, RowChange.Insert))) else None
        commitWithDeletionVectors(spark, txn, snapshot, candidates, marked, newRows, counts, operation, onlyMarkedRows, rowsByFile,
          changes = Some(cached).filter(_ => feed), startedNs = startedNs)
      } finally if (persist) cached.unpersist()
    } else {
      // A DELETE whose first pass, over a sample, finds every sampled file losing rows rewrites all
      // candidates in one pass (see [[TouchedFiles]]).
      val speculate = !mayWriteRows && !feed && SiltSettings.DeleteSpeculativeRewrite(spark) &&
        candidates.forall(_.numLogicalRecords.isDefined)
      val sample = if (speculate) TouchedFiles.sample(candidates, speculationSample(spark)) else candidates
      if (sample.size < candidates.size && TouchedFiles.eachChanged(changesOver(sample), sample.size)) {
        val rows = changesOver(candidates).where(action === RowChange.Keep.code)
        val before = candidates.flatMap(_.numLogicalRecords).sum
        return commitCopyOnWrite(spark, txn, snapshot, candidates, Some(rows),
          written => RowCounts(0L, before - written.flatMap(_.numPhysicalRecords).sum, 0L), operation, None, startedNs)
      }
      val found = TouchedFiles.of(changesOver(candidates))
      val touched = filesAt(snapshot, candidates, found.paths.toSeq)
      val all = changesOver(touched)
      val rows = all.where(
        (col(RowChanges.PathColumn).isNotNull && actionIn(RowChange.Keep, RowChange.Update)) || actionIn(RowChange.Insert))
      commitCopyOnWrite(spark, txn, snapshot, touched, Some(rows), found.counts, operation, changes = Some(all).filter(_ => feed),
        startedNs = startedNs)
    }
  }

  /** Files a DELETE's sample reads: two per core, at least four. */
  private def speculationSample(spark: SparkSession): Int = math.max(4, 2 * spark.sparkContext.defaultParallelism)

  /** Counts a row-change plan's rows by kind. */
  private def countByKind(changes: DataFrame): RowCounts =
    RowCounts.of(changes.groupBy(action).count().collect().map(r => RowChange.fromCode(r.getInt(0)) -> r.getLong(1)).toMap)

  /**
   * Marks `marked` (file path, row index) in deletion vectors and writes `newRows` (the table's
   * columns, and maybe others) to new files. `counts`: the rows updated, deleted and inserted, when
   * known; else the deleted rows are those marked. `changes`: the row-change plan's rows whose
   * changes the change data feed records, when the table has it on. `startedNs`: when the statement
   * began finding its rows (System.nanoTime). `onlyMarkedRows`: as for [[commit]].
   */
  def commitWithDeletionVectors(spark: SparkSession, txn: OptimisticTransaction, snapshot: Snapshot, candidates: Seq[AddFile],
      marked: DataFrame, newRows: Option[DataFrame], counts: Option[RowCounts],
      operation: RowLevelMetrics => Operation, onlyMarkedRows: Boolean, rowsByFile: Boolean = false,
      changes: Option[DataFrame] = None, startedNs: Long = System.nanoTime()): RowLevelMetrics = {
    if (onlyMarkedRows) txn.readOnlyMarkedRows(Some(new MovedRows(spark, snapshot)))
    val byPath = pathsOf(snapshot, candidates)
    val current = byPath.collect { case (p, a) if a.deletionVector.isDefined => p -> a.deletionVector.get }
    val deletions = RowDeletion.markDeleted(spark, snapshot.tablePath, marked, current, rowsByFile)
    val scannedNs = System.nanoTime()
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
    val toWrite = counts.exists(c => c.updated + c.inserted > 0)
    val written = newRows.filter(_ => toWrite).map(rows => write(spark, txn, rows)).getOrElse(Nil)
    val c = counts.getOrElse(RowCounts(0L, deletions.map(_.newlyDeleted).sum, 0L))
    val metrics = RowLevelMetrics(c.updated, c.deleted, c.inserted, copied = 0L,
      filesAdded = written.size, filesRemoved = filesRemoved, dvsAdded = dvsAdded, dvsRemoved = dvsRemoved, dvsUpdated = dvsUpdated)
    commitIfChanged(txn, dvActions ++ written ++ changeData(spark, txn, changes, dvActions.nonEmpty || written.nonEmpty),
      metrics, operation, startedNs, scannedNs)
  }

  /**
   * Replaces the `touched` files by new files holding `rows` (what stays of them, their rows' new
   * versions and the inserted rows; the table's columns, and maybe others; None: no rows).
   * `changes`, `startedNs`: as for [[commitWithDeletionVectors]].
   */
  def commitCopyOnWrite(spark: SparkSession, txn: OptimisticTransaction, snapshot: Snapshot, touched: Seq[AddFile],
      rows: Option[DataFrame], counts: RowCounts, operation: RowLevelMetrics => Operation,
      changes: Option[DataFrame] = None, startedNs: Long = System.nanoTime()): RowLevelMetrics =
    commitCopyOnWrite(spark, txn, snapshot, touched, rows.filter(_ => touched.nonEmpty || counts.inserted > 0L),
      (_: Seq[AddFile]) => counts, operation, changes, startedNs)

  /** As above, the counts known once the rows are written (`countsOf` the written files). */
  private def commitCopyOnWrite(spark: SparkSession, txn: OptimisticTransaction, snapshot: Snapshot, touched: Seq[AddFile],
      rows: Option[DataFrame], countsOf: Seq[AddFile] => RowCounts, operation: RowLevelMetrics => Operation,
      changes: Option[DataFrame], startedNs: Long): RowLevelMetrics = {
    val scannedNs = System.nanoTime()
    val written = rows.map(write(spark, txn, _)).getOrElse(Nil)
    val counts = countsOf(written)
    // Rows copied unchanged = rows written less the new versions and inserts (no extra pass over the data).
    val copied = written.flatMap(_.numPhysicalRecords).sum - counts.updated - counts.inserted
    val now = System.currentTimeMillis()
    val metrics = RowLevelMetrics(counts.updated, counts.deleted, counts.inserted, copied, written.size, touched.size, 0, 0, 0)
    commitIfChanged(txn, touched.map(_.remove(now)) ++ written ++
      changeData(spark, txn, changes, touched.nonEmpty || written.nonEmpty), metrics, operation, startedNs, scannedNs)
  }

  /**
   * The change data files of a commit that changes rows (`changesRows`), when the table records
   * its change data feed: its reader then takes the commit's changes from them alone, rather than
   * from its added and removed files, which hold rows that did not change too.
   */
  private def changeData(spark: SparkSession, txn: OptimisticTransaction, changes: Option[DataFrame],
      changesRows: Boolean): Seq[Action] =
    changes.filter(_ => changesRows && ChangeDataFeed.enabled(txn.metadata)).toSeq.flatMap { c =>
      ChangeDataWriter.write(spark, txn, ChangeRows.of(c, txn.metadata.schema.fieldNames.toSeq))
    }

  private def commitIfChanged(txn: OptimisticTransaction, actions: Seq[Action], metrics: RowLevelMetrics,
      operation: RowLevelMetrics => Operation, startedNs: Long, scannedNs: Long): RowLevelMetrics = {
    val counted = metrics.withSizesOf(actions).copy(timings = DmlTimings.since(startedNs, scannedNs))
    if (actions.nonEmpty || txn.metadataChanged) txn.commit(actions, operation(counted))
    counted
  }

  /**
   * Writes rows under the metadata the transaction commits (with the physical names of columns it
   * adds); on a table with row tracking, with the ids and commit versions of the rows they replace.
   */
  private def write(spark: SparkSession, txn: OptimisticTransaction, rows: DataFrame): Seq[AddFile] = {
    val (id, version) = (RowChanges.TrackedColumns.head._2, RowChanges.TrackedColumns(1)._2)
    val hidden = RowTrackingWrites.columns(txn.protocol, txn.metadata).filter(_ => rows.columns.contains(id)).toSeq
      .flatMap(c => RowTrackingWrites.kept(c, col(id), col(version), action === RowChange.Keep.code))
    val selected = rows.select(txn.metadata.schema.fieldNames.toSeq.map(Identifiers.column) ++ hidden: _*)
    DataFileWriter.write(spark, txn.log.tablePath,
      IdentityColumnWrites.generate(spark, selected, txn, txn.metadata, newRows = false), txn.metadata,
      optimizeWrite = OptimizedWrite.enabled(spark, None, txn.metadata))
  }

  private def pathsOf(snapshot: Snapshot, files: Seq[AddFile]): Map[String, AddFile] =
    files.map(a => snapshot.filePath(a).toUri.toString -> a).toMap

  /** The files of `candidates` at these paths (as a scan's file path column gives them). */
  def filesAt(snapshot: Snapshot, candidates: Seq[AddFile], paths: Seq[String]): Seq[AddFile] = {
    val byPath = pathsOf(snapshot, candidates)
    paths.map(p => byPath.getOrElse(p, throw new IllegalStateException(s"row from unknown file $p")))
  }

  /** Statistics of a file with a DV: min/max become bounds, null counts upper bounds. */
  private def looseBounds(stats: String): String = {
    val node = ActionCodec.mapper.readTree(stats).asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]
    node.put("tightBounds", false)
    ActionCodec.mapper.writeValueAsString(node)
  }
}
