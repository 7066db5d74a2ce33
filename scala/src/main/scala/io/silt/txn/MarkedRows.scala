package io.silt.txn

import io.silt.actions.{Action, AddFile, RemoveFile, TablePaths}
import io.silt.dv.{DeletionVectorReader, DeletionVectorWriter, RoaringBitmapArray}
import org.apache.hadoop.fs.Path

/** How a row-level transaction builds on a concurrent commit that changed a file it marks rows of. */
sealed trait Rebase

object Rebase {
  /** The winner kept the file with other rows deleted (`theirs`): the deletion vectors are united. */
  final case class Remarked(theirs: AddFile) extends Rebase
  /** The winner rewrote the file without changing data (OPTIMIZE, REORG) into `onto`: the marks move there, by row id. */
  final case class Moved(onto: Seq[AddFile]) extends Rebase
}

/**
 * Finds where a rewrite that changed no data put some rows of a file: by the path of each new file
 * (as `onto` names it), their indexes there; None when the rows cannot be followed (no row ids).
 */
trait RowMover {
  def moved(from: RemoveFile, rows: RoaringBitmapArray, onto: Seq[AddFile]): Option[Map[String, RoaringBitmapArray]]
}

/**
 * The rows a row-level transaction marks deleted, by file: what lets it commit on top of a concurrent
 * commit that marked other rows of the same files, or moved them (by canonical path). Each file is
 * kept with its state the transaction builds on (`base`, first as read, then as each rebase found
 * it) and the rows the transaction itself marks, read from the vectors of its own actions when first
 * needed (only once a race is lost).
 */
final class MarkedRows(tablePath: Path, own: Seq[Action], dvs: DeletionVectorReader) {
  private def key(p: String) = TablePaths.canonical(tablePath, p)

  // A file this transaction keeps with a new vector (removed and added again), or drops (every row deleted).
  private var files: Map[String, (RemoveFile, Option[AddFile])] = {
    val adds = own.collect { case a: AddFile => key(a.path) -> a }.toMap
    own.collect { case r: RemoveFile => key(r.path) -> (r -> adds.get(key(r.path))) }.toMap
  }
  // Every file this transaction has marked rows of: their removes and adds are the ones it rebuilds.
  private var ever = files.keySet
  private var marks = Map.empty[String, RoaringBitmapArray]

  /** Whether this transaction marks rows of the file at canonical path `path`. */
  def marks(path: String): Boolean = files.contains(path)

  /** The file as this transaction builds on it. */
  def base(path: String): RemoveFile = files(path)._1

  /** The files this transaction marks rows of now, by canonical path (after a move, the new files). */
  def paths: Set[String] = files.keySet

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
   * Builds on the winner's changes (by canonical path): a file kept with other rows deleted gets the
   * union of its new vector and ours; a file rewritten is replaced by the files its marked rows moved
   * to (`mover`), each given a vector holding them, or `fail` is called. The vectors are written by
   * `writer`; a file whose every row is then deleted is dropped.
   */
  def rebase(onto: Map[String, Rebase], mover: Option[RowMover], writer: DeletionVectorWriter, now: Long,
      fail: String => Nothing): Unit = if (onto.nonEmpty) {
    // each file to write a vector for: its state to build on, and our rows in it
    val targets = onto.toSeq.sortBy(_._1).flatMap {
      case (p, Rebase.Remarked(theirs)) => Seq((p, theirs, rowsOf(p)))
      case (p, Rebase.Moved(to)) =>
        val found = mover.flatMap(_.moved(base(p), rowsOf(p), to)).getOrElse(fail(
          s"rewrote $p, whose rows this transaction changes, and its rows cannot be followed to the new files " +
            "(that needs row tracking: delta.enableRowTracking)"))
        val byPath = to.map(a => a.path -> a).toMap
        found.toSeq.map { case (path, rows) => (key(path), byPath(path), rows) }
    }.groupBy(_._1).toSeq.map { case (p, ts) => (p, ts.head._2, ts.map(_._3).reduce(_ union _)) }
    val united = targets.map { case (_, theirs, ours) => dvs.rows(theirs.path, theirs.deletionVector).union(ours) }
    val written = writer.write(united)
    files --= onto.keys
    marks --= onto.keys
    targets.zip(united.zip(written)).foreach { case ((p, theirs, ours), (rows, dv)) =>
      val all = MarkedRows.physicalRows(theirs).contains(rows.cardinality)
      files += p -> (theirs.remove(now) -> (if (all) None else Some(theirs.copy(deletionVector = Some(dv), dataChange = true))))
      marks += p -> ours
      ever += p
    }
  }

  /** `actions` with the removes and adds of the marked files as the last rebase left them. */
  def applyTo(actions: Seq[Action]): Seq[Action] = actions.filter {
    case r: RemoveFile => !ever(key(r.path))
    case a: AddFile => !ever(key(a.path))
    case _ => true
  } ++ files.toSeq.sortBy(_._1).flatMap { case (_, (r, a)) => r +: a.toSeq }
}

object MarkedRows {
  /** A file's physical row count, from its statistics. */
  def physicalRows(f: RemoveFile): Option[Long] = f.stats.flatMap(AddFile.numRecordsOf)
  def physicalRows(f: AddFile): Option[Long] = f.numPhysicalRecords
}
