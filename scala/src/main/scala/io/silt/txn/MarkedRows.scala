package io.silt.txn

import io.silt.actions.{Action, AddFile, RemoveFile, TablePaths}
import io.silt.dv.{DeletionVectorReader, DeletionVectorWriter, RoaringBitmapArray}
import org.apache.hadoop.fs.Path

/**
 * The rows a row-level transaction marks deleted, by file: what lets it commit on top of a concurrent
 * commit that marked other rows of the same files (by canonical path). Each file is kept with its
 * state the transaction builds on (`base`, first as read, then as each rebase found it) and the rows
 * the transaction itself marks, read from the vectors of its own actions when first needed (only
 * once a race is lost).
 */
final class MarkedRows(tablePath: Path, own: Seq[Action], dvs: DeletionVectorReader) {
  private def key(p: String) = TablePaths.canonical(tablePath, p)

  // A file this transaction keeps with a new vector (removed and added again), or drops (every row deleted).
  private var files: Map[String, (RemoveFile, Option[AddFile])] = {
    val adds = own.collect { case a: AddFile => key(a.path) -> a }.toMap
    own.collect { case r: RemoveFile => key(r.path) -> (r -> adds.get(key(r.path))) }.toMap
  }
  private var marks = Map.empty[String, RoaringBitmapArray]

  /** Whether this transaction marks rows of the file at canonical path `path`. */
  def marks(path: String): Boolean = files.contains(path)

  /** The file as this transaction builds on it. */
  def base(path: String): RemoveFile = files(path)._1

  /** The rows of `path` this transaction marks deleted (a dropped file: every row not deleted before). */
  def rowsOf(path: String): RoaringBitmapArray = marks.getOrElse(path, {
    val (base, kept) = files(path)
    val before = dvs.rows(base.path, base.deletionVector)
    val after = kept match {
      case Some(a) => dvs.rows(a.path, a.deletionVector)
      case None => RoaringBitmapArray.allBelow(MarkedRows.physicalRows(base).getOrElse(throw new IllegalStateException(
        s"${base.path} has no row count: its rows cannot be checked one by one")))
    }
    val own = after.andNot(before)
    marks += path -> own
    own
  })

  /**
   * Builds on `onto` (by canonical path: each file as a concurrent commit kept it, with more rows
   * deleted, none of them ours): each file's vector becomes the union of its new one and ours, written
   * by `writer`; a file whose every row is then deleted is dropped.
   */
  def rebase(onto: Map[String, AddFile], writer: DeletionVectorWriter, now: Long): Unit = if (onto.nonEmpty) {
    val order = onto.keys.toSeq
    val united = order.map(p => dvs.rows(onto(p).path, onto(p).deletionVector).union(rowsOf(p)))
    val written = writer.write(united)
    order.zip(united.zip(written)).foreach { case (p, (rows, dv)) =>
      val theirs = onto(p)
      val all = MarkedRows.physicalRows(theirs).contains(rows.cardinality)
      files += p -> (theirs.remove(now) -> (if (all) None else Some(theirs.copy(deletionVector = Some(dv), dataChange = true))))
    }
  }

  /** `actions` with the remove and add of each marked file as the last rebase left them. */
  def applyTo(actions: Seq[Action]): Seq[Action] = {
    val removes = files.map { case (p, (r, _)) => p -> r }
    val adds = files.collect { case (p, (_, Some(a))) => p -> a }
    actions.flatMap {
      case r: RemoveFile if files.contains(key(r.path)) => Seq(removes(key(r.path)))
      case a: AddFile if files.contains(key(a.path)) => Nil
      case other => Seq(other)
    } ++ adds.values
  }
}

object MarkedRows {
  /** A file's physical row count, from its statistics. */
  def physicalRows(f: RemoveFile): Option[Long] = f.stats.flatMap(AddFile.numRecordsOf)
  def physicalRows(f: AddFile): Option[Long] = f.numPhysicalRecords
}
