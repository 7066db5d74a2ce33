package io.silt.log

import scala.util.control.NonFatal

import io.silt.actions._
import org.apache.spark.internal.Logging

/**
 * A snapshot's files read from its checkpoint as a scan asks for them, rather than held on the
 * driver: the adds of the row groups a [[RowGroupFilter]] keeps, less the files the commits after
 * the checkpoint (its tail) add again or remove, plus the tail's live files. What a table whose
 * checkpoint holds more than `maxDriverFiles` rows plans its scans from: the driver then holds the
 * tail and the files a scan reads, not the table's file list.
 */
final class CheckpointScan(files: LogFiles, options: LogOptions, val checkpoint: CheckpointInstance,
    tail: Seq[Seq[Action]]) extends Logging {
  private lazy val replayedTail = {
    val r = new LogReplay(files.tablePath, options.allowFilesOutside)
    tail.foreach(r.append)
    r
  }

  /** (rows, an upper bound of the bytes of their files) of the checkpoint, from its footers. */
  private lazy val summary: (Long, Long) = CheckpointReader.footerSummary(files.store, files.logPath, checkpoint)

  /** Whether the checkpoint holds more rows than the driver should hold files (not when its footers cannot be read). */
  lazy val large: Boolean = try summary._1 > options.maxDriverFiles catch { case NonFatal(_) => false }

  /** An upper bound of the bytes of the snapshot's files (what Spark weighs a scan by before pruning it). */
  def sizeUpperBound: Long = math.min(Long.MaxValue / 2, summary._2 + replayedTail.liveFiles.map(_.size).sum)

  /**
   * The snapshot's files that a `keep` accepts (each reading thread makes its own); None when the
   * checkpoint cannot be read this way (the snapshot's file list, with its fallbacks, is used then).
   */
  def files(filter: Option[RowGroupFilter])(keep: () => AddFile => Boolean): Option[IndexedSeq[AddFile]] = {
    val tail = replayedTail
    try {
      val fromCheckpoint = CheckpointReader.scanAdds(files.store, files.logPath, checkpoint, filter) { () =>
        val accept = keep()
        a => !tail.touches(a.path, a.deletionVector) && accept(a) && { tail.admit(a, TablePaths.isPlainRelative(a.path)); true }
      }
      val accept = keep()
      Some((fromCheckpoint.iterator ++ tail.liveFiles.filter(accept)).toIndexedSeq)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Silt: cannot scan $checkpoint of ${files.tablePath} by row groups; reading its file list: ${e.getMessage}")
        None
    }
  }
}
