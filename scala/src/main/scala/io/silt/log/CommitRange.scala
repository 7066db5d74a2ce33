package io.silt.log

import io.silt.actions._
import io.silt.errors.MissingCommitException

/**
 * Contiguous commits of one log, oldest first, with their commit timestamps: what timestamp time
 * travel, DESCRIBE HISTORY and an incremental reader walk. Actions are read when asked for.
 */
final class CommitRange private[log] (files: LogFiles, val entries: IndexedSeq[CommitEntry]) {
  entries.iterator.zip(entries.iterator.drop(1)).find { case (a, b) => b.version != a.version + 1 }.foreach {
    case (a, _) => throw new MissingCommitException(files.tablePath.toString, a.version + 1,
      s"commits ${entries.head.version} to ${entries.last.version} are listed without it")
  }

  def isEmpty: Boolean = entries.isEmpty

  /** The actions of one commit of the range. */
  def actions(entry: CommitEntry): Seq[Action] = files.readCommit(entry.version)

  /** The commitInfo of one commit of the range, if it has one. */
  def commitInfo(entry: CommitEntry): Option[CommitInfo] = actions(entry).collectFirst { case i: CommitInfo => i }

  /** The first commit made at or after `timestampMs` (where a change feed or a stream starts). */
  def firstAtOrAfter(timestampMs: Long): Option[CommitEntry] = entries.find(_.timestamp >= timestampMs)

  /** The last commit made at or before `timestampMs`. */
  def lastAtOrBefore(timestampMs: Long): Option[CommitEntry] = entries.takeWhile(_.timestamp <= timestampMs).lastOption

  /** The commits of versions `from` to `to` (inclusive) of this range. */
  def slice(from: Long, to: Long): CommitRange =
    new CommitRange(files, entries.filter(e => e.version >= from && e.version <= to))
}
