package io.silt.txn

import io.silt.errors._
import io.silt.actions._
import io.silt.features._
import io.silt.config.SiltSettings
import io.silt.log._
import io.silt.dv.DeletionVectorReader
import io.silt.partition.{PartitionPredicates, PartitionValues}
import io.silt.stats.{DataSkipping, FileStats}
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression, PredicateHelper}

/**
 * Decides whether a transaction that read `readSnapshot` may still commit after the `winning`
 * commits landed, by Delta Lake's checks in Delta Lake's order, each failing with its own
 * exception: protocol changed, metadata changed, the same metadata domain or application transaction, files added
 * that may hold rows the transaction read, files it read and since removed (or given a new
 * deletion vector), files removed twice. Blind appends only conflict with protocol and metadata
 * changes. Which added files count depends on the isolation `level`: under Serializable all that
 * change data, under WriteSerializable none of a blind append's, under SnapshotIsolation none.
 *
 * A file a concurrent commit kept with more rows deleted (a deletion vector grown by DELETE, UPDATE
 * or MERGE) adds no rows. To a transaction that depends only on the rows it marks
 * (`readSet.onlyMarkedRows`), a concurrent change to a file it read is no conflict unless it marks
 * rows of that file too; then, if the concurrent commit only deleted other rows of it, the check
 * answers the file as that commit kept it, to be rebased on (row-level concurrency); a row deleted
 * by both still conflicts.
 *
 * With `maxCheckedRows`, a read that has a probe (`RowRead.probe`) conflicts with the added files its
 * statistics cannot clear only if one of their rows matches it (read by the probe, at most that many rows
 * a winning commit); past the bound, or without a probe, they conflict as in Delta Lake.
 */
final class ConflictChecker(
    readSnapshot: Snapshot,
    readSet: ReadSet,
    ownRemoves: Set[String],
    ownTxnIds: Set[String],
    ownDomains: Set[String],
    level: IsolationLevel,
    timeZone: String,
    dvs: DeletionVectorReader,
    maxCheckedRows: Option[Long] = None,
    changesMetadata: Boolean = true) extends PredicateHelper {
  import ConflictChecker.unqualified
  private lazy val tablePath = readSnapshot.tablePath
  private lazy val partitionColumns = readSnapshot.metadata.partitionColumns.map(_.toLowerCase).toSet

  /**
   * Fails with Delta's exception if the `winning` commit conflicts; else answers, by canonical path,
   * how to build on the winner's changes to files of `marked`.
   */
  def check(winningVersion: Long, winning: Seq[Action], marked: Option[MarkedRows] = None): Map[String, Rebase] = {
    def conflict[E <: ConcurrentModificationException](make: String => E, what: String): Nothing =
      throw make(message(winningVersion, winning, what))
    checked = 0L

    winning.foreach {
      case _: Protocol => conflict(new ProtocolChangedException(_), "changed the table's protocol")
      // As in Delta Lake, a winner that only moved identity columns' marks (it generated values) is built on by a
      // transaction that changes no metadata; one that generated values too would repeat the winner's.
      case m: Metadata if IdentityColumns.onlyMarksChanged(readSnapshot.metadata, m) =>
        if (changesMetadata) conflict(new MetadataChangedException(_), "generated identity column values (its metadata " +
          "moved their high-water marks), and this transaction changes the metadata too: if it generated values, they " +
          "came from the same high-water mark and would repeat the winner's")
      case _: Metadata => conflict(new MetadataChangedException(_), "changed the table's metadata (schema, partitioning or properties)")
      // As in Delta, row tracking's domain (its high-water mark) would be reconciled, not contested.
      case d: DomainMetadata if ownDomains(d.domain) && d.domain != RowTracking.Domain =>
        conflict(new ConcurrentTransactionException(_), s"changed the metadata domain '${d.domain}', which this transaction also changes")
      case t: SetTransaction if ownTxnIds.contains(t.appId) =>
        conflict(new ConcurrentTransactionException(_), s"committed the same application transaction '${t.appId}'")
      case _ =>
    }
    val winnerBlindAppend = winning.collectFirst { case c: CommitInfo => c.isBlindAppend }.flatten.getOrElse(false)
    val removes = winning.collect { case r: RemoveFile => TablePaths.canonical(tablePath, r.path) -> r }.toMap
    val removedRead = if (readSet.wholeTable) removes.keySet else removes.keySet.intersect(readSet.files)
    val rows = marked.filter(_ => readSet.onlyMarkedRows).map(new RowLevel(_, winning, removes, removedRead))
    // To a row-level transaction, a file given back with more rows deleted adds none (unless it conflicts
    // at row level); otherwise, as in Delta, a file added back with a new deletion vector counts as added.
    def addedRows = winning.view.collect { case a: AddFile if a.dataChange => a }.filterNot(a => rows.exists(_.addsNoRows(a)))
    val added: Iterable[AddFile] = level match {
      case _ if readSet.validatesRows => addedRows
      case IsolationLevel.SnapshotIsolation => Nil
      case IsolationLevel.WriteSerializable if winnerBlindAppend => Nil
      case _ => addedRows
    }
    def appended(a: AddFile, read: String) = conflict(new ConcurrentAppendException(_),
      s"added ${a.path}${partitionOf(a)}, which may hold rows this transaction read ($read)")
    if (readSet.validatesRows) added.headOption.foreach(appended(_, "every row, checked against a new constraint"))
    if (readSet.wholeTable) added.headOption.foreach(appended(_, "the whole table"))
    lazy val comparable = new PartitionValues.Comparable(readSnapshot.metadata.partitionSchema, timeZone)
    added.find(a => readSet.partitionValues.nonEmpty && readSet.partitionValues(comparable(a.partitionValues)))
      .foreach(appended(_, "partitions it replaces"))
    if (readSet.partitionPredicates.nonEmpty) {
      val matches = PartitionPredicates.matcher(readSet.partitionPredicates, readSnapshot.metadata.partitionSchema, timeZone)
      added.find(matches).foreach(appended(_, "partitions where " + readSet.partitionPredicates.map(unqualified).mkString(" AND ")))
    }
    // A file given back with more rows deleted holds rows that were there when this transaction read: the
    // checks of files read decide, and as in Delta Lake its statistics here (no probe reads it).
    def regrown(a: AddFile) = removes.get(TablePaths.canonical(tablePath, a.path)).exists(onlyDeletesRows(_, a))
    for ((read, mayHoldRows) <- rowMatchers) {
      val (old, fresh) = added.filter(mayHoldRows).toSeq.partition(regrown)
      old.headOption.foreach(appended(_, s"rows where ${unqualified(read.condition)}"))
      if (fresh.nonEmpty) checkRows(read, fresh, conflict(new ConcurrentAppendException(_), _))
    }
    rows.flatMap(_.conflicts.headOption).foreach { case (_, why) => conflict(new ConcurrentDeleteReadException(_), why) }
    val rebases = rows.map(_.rebases).getOrElse(Map.empty[String, Rebase])
    val unsettled = rows.fold(removedRead)(r => removedRead -- r.settled)
    if (unsettled.nonEmpty) conflict(new ConcurrentDeleteReadException(_),
      s"removed (or gave a new deletion vector to) files this transaction read: ${unsettled.toSeq.sorted.take(3).mkString(", ")}")
    val removedOurs = removes.keySet.intersect(ownRemoves) -- rebases.keySet
    if (removedOurs.nonEmpty) conflict(new ConcurrentDeleteDeleteException(_),
      s"removed files this transaction also removes: ${removedOurs.take(3).mkString(", ")}")
    rebases
  }

  /** Rows of added files the last check read to test them against a read's condition. */
  def checkedRows: Long = checked
  private var checked = 0L

  /**
   * Fails unless none of `files` (added, their statistics not ruling out the rows of `read`) holds such a
   * row: by the read's probe where it has one and their rows are few enough to read, else at once.
   */
  private def checkRows(read: RowRead, files: Seq[AddFile], fail: String => Nothing): Unit = {
    val where = s"rows where ${unqualified(read.condition)}"
    val probe = read.probe.filter(_ => read.condition.deterministic)
    (probe, maxCheckedRows) match {
      case (Some(p), Some(max)) =>
        val counts = files.map(_.numPhysicalRecords)
        val rows = if (counts.forall(_.isDefined)) Some(counts.flatten.sum) else None
        if (!rows.exists(_ <= max)) fail(s"added ${files.size} file(s) (${files.head.path}${partitionOf(files.head)}" +
          s"${if (files.size > 1) ", …" else ""}) whose statistics do not rule out $where, which this transaction read; " +
          s"testing ${rows.fold("their rows (of unknown number)")(n => s"their $n rows")} would read more than " +
          s"${SiltSettings.RowLevelConcurrencyMaxCheckedRows.key} = $max rows, so the check was not made (no overlap " +
          "was found). Raise the setting to have such commits checked row by row")
        checked += rows.get
        p.firstMatching(files).foreach(path => fail(s"added $path${files.find(_.path == path).fold("")(partitionOf)}, " +
          s"which holds rows ${p.rows} (rows this transaction read, tested one by one)"))
      case _ => fail(s"added ${files.head.path}${partitionOf(files.head)}, which may hold rows this transaction read ($where)")
    }
  }

  /** The message of a conflict with the `winning` commit, saying what it did. */
  def message(winningVersion: Long, winning: Seq[Action], what: String): String = {
    val operation = winning.collectFirst { case c: CommitInfo => Option(c.json.get("operation")).map(_.asText) }.flatten
    s"a concurrent ${operation.getOrElse("commit")} (version $winningVersion) of $tablePath $what; this transaction " +
      s"read version ${readSnapshot.version} and committed nothing. Retry the operation."
  }

  /**
   * What the winner's change to each file read means to a transaction that depends only on the rows
   * it marks (by canonical path): no conflict for a file it marks no row of; for a file it marks rows
   * of, a rebase when the winner only deleted other rows of it, or rewrote it without changing data
   * (the marks then move to the new files); a conflict otherwise.
   */
  private final class RowLevel(marked: MarkedRows, winning: Seq[Action], removes: Map[String, RemoveFile],
      removedRead: Set[String]) {
    private val kept = winning.collect { case a: AddFile if a.dataChange => TablePaths.canonical(tablePath, a.path) -> a }
      .filter { case (p, _) => removedRead(p) }.toMap
    // A commit that only moves rows between files (OPTIMIZE, REORG, auto compaction).
    private val rewroteOnly = winning.forall {
      case a: AddFile => !a.dataChange
      case r: RemoveFile => !r.dataChange
      case _ => true
    }
    private val verdicts: Map[String, Either[String, Option[Rebase]]] = removedRead.toSeq.sorted.map { p =>
      p -> (if (!marked.marks(p)) Right(None) else kept.get(p) match {
        case Some(theirs) if removes(p).deletionVector == marked.base(p).deletionVector && onlyDeletesRows(removes(p), theirs) =>
          val both = dvs.rows(theirs.path, theirs.deletionVector).andNot(dvs.rows(p, removes(p).deletionVector))
            .intersect(marked.rowsOf(p))
          if (both.isEmpty) Right(Some(Rebase.Remarked(theirs)))
          else Left(s"deleted or changed ${both.cardinality} row(s) of $p that this transaction also changes " +
            s"(row indexes ${both.toArray.take(5).mkString(", ")})")
        case None if rewroteOnly && removes(p).deletionVector == marked.base(p).deletionVector =>
          Right(Some(Rebase.Moved(winning.collect {
            case a: AddFile if a.partitionValues == removes(p).partitionValues => a
          })))
        case _ => Left(s"rewrote or removed $p, whose rows this transaction changes")
      })
    }.toMap

    /** Files read that the winner's change does not conflict with. */
    val settled: Set[String] = verdicts.collect { case (p, Right(_)) => p }.toSet
    /** Whether the winner's `a` gives back a file with more rows deleted, and no row this transaction changes. */
    def addsNoRows(a: AddFile): Boolean = known.getOrElseUpdate(a, {
      val p = TablePaths.canonical(tablePath, a.path)
      !verdicts.get(p).exists(_.isLeft) && removes.get(p).exists(onlyDeletesRows(_, a))
    })
    private val known = scala.collection.mutable.Map.empty[AddFile, Boolean]
    val rebases: Map[String, Rebase] = verdicts.collect { case (p, Right(Some(r))) => p -> r }
    val conflicts: Seq[(String, String)] = verdicts.toSeq.sortBy(_._1).collect { case (p, Left(why)) => p -> why }
  }

  /** Whether an add of the file `r` removes only deletes more of its rows (its deletion vector grows). */
  private def onlyDeletesRows(r: RemoveFile, a: AddFile): Boolean = a.deletionVector.isDefined && (
    r.deletionVector.isEmpty || r.deletionVector == a.deletionVector ||
      dvs.rows(a.path, a.deletionVector).containsAll(dvs.rows(r.path, r.deletionVector)))

  private lazy val parseStats = FileStats.parserFor(readSnapshot.metadata)

  /** Each read of rows, with whether a file may hold rows matching it (from its partition values and statistics). */
  private lazy val rowMatchers: Seq[(RowRead, AddFile => Boolean)] = readSet.predicates.map { read =>
    val (onPartitions, onData) = splitConjunctivePredicates(read.condition)
      .partition(_.references.forall(a => partitionColumns.contains(a.name.toLowerCase)))
    val inPartitions = PartitionPredicates.matcher(onPartitions, readSnapshot.metadata.partitionSchema, timeZone)
    read -> ((file: AddFile) => inPartitions(file) && DataSkipping.mayMatch(onData, parseStats(file.stats)))
  }

  private def partitionOf(a: AddFile): String =
    if (a.partitionValues.isEmpty) "" else a.partitionValues.map { case (k, v) => s"$k=$v" }.mkString(" (partition ", ", ", ")")
}

object ConflictChecker {
  /** A condition as SQL, its columns without the table's name: how a conflict's message names a read. */
  def unqualified(e: Expression): String = e.transform { case a: AttributeReference => a.withQualifier(Nil) }.sql
}
