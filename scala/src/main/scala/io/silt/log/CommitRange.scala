package io.silt.log

import scala.collection.mutable

import io.silt.actions._
import io.silt.errors.MissingCommitException
import io.silt.features.TableProperties

/**
 * Where a table's in-commit timestamps begin: the first version whose commit carries one, and
 * that timestamp (version 0 and no lower bound when they were on from the table's creation).
 */
final case class InCommitTimes(fromVersion: Long, fromTimestamp: Long)

object InCommitTimes {
  /** The in-commit timestamps of a table whose latest properties are `props`; None when they are off. */
  def of(props: TableProperties): Option[InCommitTimes] =
    if (!props.inCommitTimestamps) None
    else Some(props.inCommitTimestampEnablement.map { case (v, t) => InCommitTimes(v, t) }
      .getOrElse(InCommitTimes(0L, Long.MinValue)))
}

/**
 * Contiguous commits of one log, oldest first, with their commit timestamps: what timestamp time
 * travel, DESCRIBE HISTORY and an incremental reader walk. A commit's timestamp is its
 * `inCommitTimestamp` from where those begin (`ict`), else its file's (made monotonic); the two
 * never interleave, since the commit turning them on is stamped after the one before it. In-commit
 * timestamps are read from the commits as needed (a search reads a logarithmic number of them).
 * Actions are read when asked for.
 */
final class CommitRange private[log] (files: LogFiles, listed: IndexedSeq[CommitEntry], ict: Option[InCommitTimes]) {
  listed.iterator.zip(listed.iterator.drop(1)).find { case (a, b) => b.version != a.version + 1 }.foreach {
    case (a, _) => throw new MissingCommitException(files.tablePath.toString, a.version + 1,
      s"commits ${listed.head.version} to ${listed.last.version} are listed without it")
  }

  private val inCommit = mutable.Map.empty[Long, Long]
  /** The index of the first commit with an in-commit timestamp (the size when none has). */
  private val split: Int = ict.map(s => listed.indexWhere(_.version >= s.fromVersion)).map(i => if (i < 0) listed.size else i)
    .getOrElse(listed.size)

  private def timestampAt(i: Int): Long =
    if (i < split) listed(i).timestamp
    else inCommit.getOrElseUpdate(listed(i).version, files.requiredInCommitTimestamp(listed(i).version))

  /** Every commit with its timestamp (reads each in-commit timestamp). */
  lazy val entries: IndexedSeq[CommitEntry] = listed.indices.map(i => listed(i).copy(timestamp = timestampAt(i)))

  def isEmpty: Boolean = listed.isEmpty

  /** The actions of one commit of the range. */
  def actions(entry: CommitEntry): Seq[Action] = files.readCommit(entry.version)

  /** The commitInfo of one commit of the range, if it has one. */
  def commitInfo(entry: CommitEntry): Option[CommitInfo] = actions(entry).collectFirst { case i: CommitInfo => i }

  /** The first commit made at or after `timestampMs` (where a change feed or a stream starts). */
  def firstAtOrAfter(timestampMs: Long): Option[CommitEntry] = {
    val i = firstIndex(timestampAt(_) >= timestampMs)
    if (i < listed.size) Some(listed(i).copy(timestamp = timestampAt(i))) else None
  }

  /** The last commit made at or before `timestampMs`. */
  def lastAtOrBefore(timestampMs: Long): Option[CommitEntry] = {
    val i = firstIndex(timestampAt(_) > timestampMs) - 1
    if (i >= 0) Some(listed(i).copy(timestamp = timestampAt(i))) else None
  }

  /** The first index where `p` holds (timestamps only grow, so `p` holds from there on), or the size. */
  private def firstIndex(p: Int => Boolean): Int = {
    // file times before the split: a scan, as they are known; in-commit ones after it: a binary search
    val before = (0 until split).find(p)
    before.getOrElse {
      var (lo, hi) = (split, listed.size)
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (p(mid)) hi = mid else lo = mid + 1
      }
      lo
    }
  }

  /** The commits of versions `from` to `to` (inclusive) of this range. */
  def slice(from: Long, to: Long): CommitRange =
    new CommitRange(files, listed.filter(e => e.version >= from && e.version <= to), ict)
}
