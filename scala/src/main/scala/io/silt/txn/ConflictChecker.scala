package io.silt.txn

import io.silt.errors._
import io.silt.actions._
import io.silt.features._
import io.silt.log._
import io.silt.partition.PartitionPredicates
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
 */
final class ConflictChecker(
    readSnapshot: Snapshot,
    readSet: ReadSet,
    ownRemoves: Set[String],
    ownTxnIds: Set[String],
    ownDomains: Set[String],
    level: IsolationLevel,
    timeZone: String) extends PredicateHelper {
  private lazy val tablePath = readSnapshot.tablePath
  private lazy val partitionColumns = readSnapshot.metadata.partitionColumns.map(_.toLowerCase).toSet

  def check(winningVersion: Long, winning: Seq[Action]): Unit = {
    val operation = winning.collectFirst { case c: CommitInfo => Option(c.json.get("operation")).map(_.asText) }.flatten
    def conflict[E <: ConcurrentModificationException](make: String => E, what: String): Nothing = throw make(
      s"a concurrent ${operation.getOrElse("commit")} (version $winningVersion) of $tablePath $what; this transaction " +
        s"read version ${readSnapshot.version} and committed nothing. Retry the operation.")

    winning.foreach {
      case _: Protocol => conflict(new ProtocolChangedException(_), "changed the table's protocol")
      case _: Metadata => conflict(new MetadataChangedException(_), "changed the table's metadata (schema, partitioning or properties)")
      // As in Delta, row tracking's domain (its high-water mark) would be reconciled, not contested.
      case d: DomainMetadata if ownDomains(d.domain) && d.domain != RowTracking.Domain =>
        conflict(new ConcurrentTransactionException(_), s"changed the metadata domain '${d.domain}', which this transaction also changes")
      case t: SetTransaction if ownTxnIds.contains(t.appId) =>
        conflict(new ConcurrentTransactionException(_), s"committed the same application transaction '${t.appId}'")
      case _ =>
    }
    val winnerBlindAppend = winning.collectFirst { case c: CommitInfo => c.isBlindAppend }.flatten.getOrElse(false)
    val added = level match {
      case _ if readSet.validatesRows => winning.collect { case a: AddFile if a.dataChange => a }
      case IsolationLevel.SnapshotIsolation => Nil
      case IsolationLevel.WriteSerializable if winnerBlindAppend => Nil
      case _ => winning.collect { case a: AddFile if a.dataChange => a }
    }
    def appended(a: AddFile, read: String) = conflict(new ConcurrentAppendException(_),
      s"added ${a.path}${partitionOf(a)}, which may hold rows this transaction read ($read)")
    if (readSet.validatesRows) added.headOption.foreach(appended(_, "every row, checked against a new constraint"))
    if (readSet.wholeTable) added.headOption.foreach(appended(_, "the whole table"))
    added.find(a => readSet.partitionValues(ReadSet.partitionKey(a.partitionValues)))
      .foreach(appended(_, "partitions it replaces"))
    if (readSet.partitionPredicates.nonEmpty) {
      val matches = PartitionPredicates.matcher(readSet.partitionPredicates, readSnapshot.metadata.partitionSchema, timeZone)
      added.find(matches).foreach(appended(_, "partitions where " + readSet.partitionPredicates.map(unqualified).mkString(" AND ")))
    }
    for ((p, mayHoldRows) <- rowMatchers; a <- added.find(mayHoldRows)) appended(a, s"rows where ${unqualified(p)}")
    val removed = winning.collect { case r: RemoveFile => TablePaths.canonical(tablePath, r.path) }.toSet
    val removedRead = if (readSet.wholeTable) removed else removed.intersect(readSet.files)
    if (removedRead.nonEmpty) conflict(new ConcurrentDeleteReadException(_),
      s"removed (or gave a new deletion vector to) files this transaction read: ${removedRead.take(3).mkString(", ")}")
    val removedOurs = removed.intersect(ownRemoves)
    if (removedOurs.nonEmpty) conflict(new ConcurrentDeleteDeleteException(_),
      s"removed files this transaction also removes: ${removedOurs.take(3).mkString(", ")}")
  }

  private lazy val parseStats = FileStats.parserFor(readSnapshot.metadata)

  /** Each read condition, with whether a file may hold rows matching it (from its partition values and statistics). */
  private lazy val rowMatchers: Seq[(Expression, AddFile => Boolean)] = readSet.predicates.map { condition =>
    val (onPartitions, onData) = splitConjunctivePredicates(condition)
      .partition(_.references.forall(a => partitionColumns.contains(a.name.toLowerCase)))
    val inPartitions = PartitionPredicates.matcher(onPartitions, readSnapshot.metadata.partitionSchema, timeZone)
    condition -> ((file: AddFile) => inPartitions(file) && DataSkipping.mayMatch(onData, parseStats(file.stats)))
  }

  /** A condition as SQL, its columns without the table's name. */
  private def unqualified(e: Expression): String = e.transform { case a: AttributeReference => a.withQualifier(Nil) }.sql

  private def partitionOf(a: AddFile): String =
    if (a.partitionValues.isEmpty) "" else a.partitionValues.map { case (k, v) => s"$k=$v" }.mkString(" (partition ", ", ", ")")
}
