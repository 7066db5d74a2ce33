package io.silt.txn

import io.silt.errors.ConcurrentModificationException
import io.silt.log._
import io.silt.partition.PartitionPredicates

/**
 * Decides whether a transaction that read `readSnapshot` may still commit after the `winning`
 * commits landed. Blind appends only conflict with protocol and metadata changes.
 */
final class ConflictChecker(
    readSnapshot: Snapshot,
    readSet: ReadSet,
    ownRemoves: Set[String],
    ownTxnIds: Set[String],
    timeZone: String) {

  def check(winningVersion: Long, winning: Seq[Action]): Unit = {
    val tablePath = readSnapshot.tablePath
    def fail(what: String) = throw new ConcurrentModificationException(
      s"a concurrent commit (version $winningVersion) to ${readSnapshot.tablePath} $what; " +
        s"this transaction read version ${readSnapshot.version} and committed nothing. Retry the operation.")

    winning.foreach {
      case _: Protocol => fail("changed the table's protocol")
      case _: Metadata => fail("changed the table's metadata (schema, partitioning or properties)")
      case t: SetTransaction if ownTxnIds.contains(t.appId) =>
        fail(s"committed the same application transaction '${t.appId}'")
      case _ =>
    }
    val removed = winning.collect { case r: RemoveFile => TablePaths.canonical(tablePath, r.path) }.toSet
    val removedOurs = removed.intersect(ownRemoves)
    if (removedOurs.nonEmpty) fail(s"removed files this transaction also removes: ${removedOurs.take(3).mkString(", ")}")
    val removedRead = if (readSet.wholeTable) removed else removed.intersect(readSet.files)
    if (removedRead.nonEmpty) fail(s"removed files this transaction read: ${removedRead.take(3).mkString(", ")}")
    if (readSet.partitionValues.nonEmpty) {
      val added = winning.collect { case a: AddFile if a.dataChange && readSet.partitionValues(ReadSet.partitionKey(a.partitionValues)) => a.path }
      if (added.nonEmpty) fail(s"added files in partitions this transaction replaces: ${added.take(3).mkString(", ")}")
    }
    if (readSet.partitionPredicates.nonEmpty && readSet.wholeTable == false) {
      val matches = PartitionPredicates.matcher(readSet.partitionPredicates,
        readSnapshot.metadata.partitionSchema, timeZone)
      val added = winning.collect { case a: AddFile if a.dataChange && matches(a) => a.path }
      if (added.nonEmpty) fail(s"added files in partitions this transaction read: ${added.take(3).mkString(", ")}")
    } else if (readSet.wholeTable) {
      val added = winning.collect { case a: AddFile if a.dataChange => a.path }
      if (added.nonEmpty) fail(s"added files to the table this transaction read: ${added.take(3).mkString(", ")}")
    }
  }
}
