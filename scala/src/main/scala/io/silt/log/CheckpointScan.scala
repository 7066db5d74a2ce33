package io.silt.log

import scala.util.control.NonFatal

import io.silt.actions._
import io.silt.logstore.StorageFailure
import org.apache.spark.internal.Logging

/**
 * A snapshot's files read from its checkpoint as a scan asks for them, rather than held on the
 * driver: the adds of the row groups a [[RowGroupFilter]] keeps, less the files the commits after
 * the checkpoint (its tail) add again or remove, plus the tail's live files. What a table whose
 * checkpoint holds more than `maxDriverFiles` rows plans its scans from: the driver then holds the
 * tail and the files a scan reads, not the table's file list.
 */
final class CheckpointScan(files: LogFiles, options: LogOptions, val checkpoint: CheckpointInstance,
    val tail: Seq[Seq[Action]], footprint: Option[CheckpointScan.Footprint] = None) extends Logging {
  private val read = footprint.getOrElse(new CheckpointScan.Footprint(files, checkpoint))
  private lazy val replayedTail = {
    val r = new LogReplay(files.tablePath, options.allowFilesOutside)
    tail.foreach(r.append)
    r
  }

  private def summary = read.summary

  /**
   * Whether the checkpoint holds more rows than the driver should hold files. A storage error reading
   * its footers fails the read (it says nothing about the size); footers that cannot be decoded count
   * as small, with a warning, since the file list is then read the way the checkpoint allows.
   */
  lazy val large: Boolean = try summary.rows > options.maxDriverFiles catch {
    case NonFatal(e) if StorageFailure.of(e).isEmpty =>
      logWarning(s"Silt: cannot read the footers of $checkpoint of ${files.tablePath}, so its size is unknown; " +
        s"reading its file list on the driver: ${e.getMessage}")
      false
  }

  /**
   * The snapshot's number of files: the checkpoint's adds (from its footers' null counts) less the
   * checkpoint's files the tail removed or replaced, plus the tail's live files. A tail file's first
   * action says whether it was in the checkpoint (a remove: yes; a data-changing add: no); for the
   * others (an add that changes no data, which may re-add a checkpoint's file) the checkpoint is read.
   */
  lazy val numFiles: Long = {
    val r = replayedTail
    val first = scala.collection.mutable.HashMap.empty[(String, String), Option[Boolean]]
    tail.iterator.flatten.foreach {
      case a: AddFile => first.getOrElseUpdate(r.keyOf(a.path, a.deletionVector), if (a.dataChange) Some(false) else None)
      case x: RemoveFile => first.getOrElseUpdate(r.keyOf(x.path, x.deletionVector), Some(true))
      case _ =>
    }
    // whether a tail file was in the checkpoint is asked of it once for all the snapshots made of it
    val unknown = first.collect { case (k, None) if !read.inCheckpoint.contains(k) => k }.toSet
    if (unknown.nonEmpty) {
      val seen = java.util.concurrent.ConcurrentHashMap.newKeySet[(String, String)]()
      CheckpointReader.scanAdds(files.store, read.layout, None) { () => a =>
        val k = r.keyOf(a.path, a.deletionVector)
        if (unknown(k)) seen.add(k)
        false
      }
      unknown.foreach(k => read.inCheckpoint.put(k, seen.contains(k)))
    }
    val fromCheckpoint = summary.adds.getOrElse(countAdds())
    val replaced = first.count { case (k, origin) => origin.getOrElse(read.inCheckpoint(k)) }
    fromCheckpoint - replaced + r.liveFiles.size
  }

  private def countAdds(): Long = {
    val n = new java.util.concurrent.atomic.AtomicLong()
    CheckpointReader.scanAdds(files.store, read.layout, None) { () => _ => n.incrementAndGet(); false }
    n.get
  }

  /** The bytes of the snapshot's files, summed over a read of the checkpoint's adds (nothing is kept). */
  lazy val sizeInBytes: Long = {
    val r = replayedTail
    val bytes = new java.util.concurrent.atomic.AtomicLong()
    CheckpointReader.scanAdds(files.store, read.layout, None) { () => a =>
      if (!r.touches(a.path, a.deletionVector)) bytes.addAndGet(a.size)
      false
    }
    bytes.get + r.liveFiles.map(_.size).sum
  }

  /** The same checkpoint with one more commit's `actions` in its tail (its footers not read again). */
  def appended(actions: Seq[Action]): CheckpointScan =
    new CheckpointScan(files, options, checkpoint, tail :+ actions, Some(read))

  private lazy val transactionsAndDomains = {
    val r = new LogReplay(files.tablePath, options.allowFilesOutside)
    r.append(read.transactionsAndDomains)
    tail.foreach(r.append)
    r.toState
  }

  /** The snapshot's transactions: the checkpoint's rows of them, with the tail's applied. */
  def transactions: Map[String, SetTransaction] = transactionsAndDomains.transactions

  /** The snapshot's domains (without removed ones), as [[transactions]]. */
  def domains: Map[String, DomainMetadata] = transactionsAndDomains.domains

  /** An upper bound of the bytes of the snapshot's files (what Spark weighs a scan by before pruning it). */
  def sizeUpperBound: Long = math.min(Long.MaxValue / 2, summary.sizeBound + replayedTail.liveFiles.map(_.size).sum)

  /**
   * The snapshot's files that a `keep` accepts (each reading thread makes its own); None when the
   * checkpoint cannot be read this way (the snapshot's file list, with its fallbacks, is used then).
   */
  def files(filter: Option[RowGroupFilter])(keep: () => AddFile => Boolean): Option[IndexedSeq[AddFile]] = {
    val tail = replayedTail
    try {
      val fromCheckpoint = CheckpointReader.scanAdds(files.store, read.layout, filter) { () =>
        val accept = keep()
        a => !tail.touches(a.path, a.deletionVector) && accept(a) && { tail.admit(a, TablePaths.isPlainRelative(a.path)); true }
      }
      val accept = keep()
      Some((fromCheckpoint.iterator ++ tail.liveFiles.filter(accept)).toIndexedSeq)
    } catch {
      case NonFatal(e) if StorageFailure.of(e).isEmpty =>
        logWarning(s"Silt: cannot scan $checkpoint of ${files.tablePath} by row groups; reading its file list " +
          s"on the driver: ${e.getMessage}")
        None
    }
  }
}

object CheckpointScan {
  /** What is read of a checkpoint once, for every snapshot made of it and more commits. */
  final class Footprint(files: LogFiles, checkpoint: CheckpointInstance) {
    lazy val layout: CheckpointReader.Layout = CheckpointReader.layout(files.store, files.logPath, checkpoint)
    lazy val summary: CheckpointReader.FooterSummary = CheckpointReader.footerSummary(layout)
    lazy val transactionsAndDomains: Seq[Action] =
      CheckpointReader.readTransactionsAndDomains(files.store, files.logPath, checkpoint)
    /** Of tail files whose first action does not say, whether the checkpoint holds them (by replay key). */
    val inCheckpoint = scala.collection.concurrent.TrieMap.empty[(String, String), Boolean]
  }
}
