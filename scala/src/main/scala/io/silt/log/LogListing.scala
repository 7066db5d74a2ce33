package io.silt.log

import io.silt.actions._
import io.silt.logstore._
import scala.collection.mutable.ArrayBuffer

import com.fasterxml.jackson.databind.JsonNode
import io.silt.errors.{CorruptLogException, ErrorClass, MissingCommitException}
import org.apache.hadoop.fs.{FileStatus, Path}

/** A commit as listed in `_delta_log/`: its version, file and commit timestamp. */
final case class CommitEntry(version: Long, file: FileStatus, timestamp: Long)

/** A log compaction file: the reconciled actions of commits `start` to `end`, which it may replace in a replay. */
final case class LogCompaction(start: Long, end: Long, file: FileStatus)

/**
 * What `_delta_log/` holds from version `from` on (`from` = 0: all of it): the commits (oldest
 * first), the complete checkpoints (newest first) and the log compactions starting there or later.
 */
final case class LogListing(commits: IndexedSeq[CommitEntry], checkpoints: Seq[CheckpointInstance], from: Long = 0L,
    compactions: Seq[LogCompaction] = Nil) {
  private lazy val byVersion = commits.map(c => c.version -> c).toMap
  def commit(version: Long): Option[CommitEntry] = byVersion.get(version)
  def isEmpty: Boolean = commits.isEmpty && checkpoints.isEmpty
  def latestVersion: Long = (commits.map(_.version) ++ checkpoints.map(_.version)).max

  /** The oldest version a snapshot can be built for: commit 0 or the oldest checkpoint. */
  def earliestVersion: Long =
    if (byVersion.contains(0)) 0 else (checkpoints.map(_.version) ++ commits.headOption.map(_.version)).min

  /** Whether a partial listing starts where expected: with commit `from` or a checkpoint at `from`. */
  def startsAtFrom: Boolean = commit(from).isDefined || checkpoints.exists(_.version == from)

  /**
   * What replays commits `from` to `to`: at each version, the compaction starting there that
   * reaches furthest without passing `to` (as delta-kernel-rs chooses), else that version's commit.
   */
  def cover(from: Long, to: Long): Seq[Either[LogCompaction, Long]] = {
    val widest = compactions.filter(_.end <= to).groupBy(_.start).map { case (s, cs) => s -> cs.maxBy(_.end) }
    val out = ArrayBuffer.empty[Either[LogCompaction, Long]]
    var v = from
    while (v <= to) widest.get(v) match {
      case Some(c) => out += Left(c); v = c.end + 1
      case None => out += Right(v); v += 1
    }
    out.toSeq
  }

  /** The commit timestamp of `version`: its commit's, else its checkpoint's file time. */
  def timestampOf(version: Long): Long = commit(version).map(_.timestamp).getOrElse(
    checkpoints.find(_.version == version).flatMap(_.files.headOption).map(_.getModificationTime).getOrElse(0L))
}

/**
 * The files of one `_delta_log/`: which files make a version (listing from a version on, or
 * probing commits by name), their commit timestamps, and the actions of a commit.
 */
final class LogFiles(val tablePath: Path, val store: LogStore) {
  val logPath: Path = new Path(tablePath, "_delta_log")

  /**
   * Lists the log from `fromVersion` on (all of it by default). Commit timestamps are made
   * monotonic, as Delta's file-time semantics want.
   */
  def list(fromVersion: Long = 0L): LogListing = {
    // Log names start with a 20-digit version: comparing that prefix as a string skips the older
    // history without parsing every name of a long log.
    val fromPrefix = if (fromVersion <= 0) "" else f"$fromVersion%020d"
    val keep: String => Boolean =
      if (fromVersion <= 0) _ => true else name => FileNames.classify(name).exists(_.version >= fromVersion)
    val classified = store.list(logPath, fromPrefix, keep).flatMap(st => FileNames.classify(st.getPath.getName).map(_ -> st))
    val commits = classified.collect { case (FileNames.CommitFile(v), st) => v -> st }.sortBy(_._1)
    val entries = LogFiles.monotonic(commits, Long.MinValue)
    val checkpoints = CheckpointInstance.complete(classified.collect { case (c: FileNames.CheckpointFile, st) => c -> st })
    val compactions = classified.collect { case (FileNames.CompactedFile(s, e), st) => LogCompaction(s, e, st) }
    LogListing(entries, checkpoints, math.max(fromVersion, 0L), compactions)
  }

  /**
   * Commits `from`, `from + 1`, … as long as they exist, asked for by name (commits are
   * contiguous), with timestamps made monotonic after `previous`; None past `limit` of them.
   */
  def probe(from: Long, previous: Long, limit: Int): Option[IndexedSeq[CommitEntry]] = {
    val found = ArrayBuffer.empty[FileStatus]
    var next = stat(from)
    while (next.isDefined && found.size < limit) {
      found += next.get
      next = stat(from + found.size)
    }
    if (next.isDefined) None else Some(LogFiles.monotonic(found.toSeq.zipWithIndex.map { case (st, i) => (from + i) -> st }, previous))
  }

  /** The commit file of `version`, if it exists. */
  def stat(version: Long): Option[FileStatus] = {
    val path = FileNames.commitPath(logPath, version)
    try Some(store.fs(path).getFileStatus(path)) catch { case _: java.io.FileNotFoundException => None }
  }

  /**
   * The `inCommitTimestamp` of commit `version` (in its first action, a `commitInfo`), if it has one;
   * a first line that is not JSON is a corrupt commit, never "no timestamp".
   */
  def inCommitTimestamp(version: Long): Option[Long] = firstCommitInfo(version)._2
    .flatMap(info => Option(info.get("inCommitTimestamp"))).filter(_.isIntegralNumber).map(_.asLong)

  /**
   * The `inCommitTimestamp` of commit `version`, made while in-commit timestamps were on: a commit
   * without one is refused as Delta Lake refuses it (its file's time would be a guess).
   */
  def requiredInCommitTimestamp(version: Long): Long = {
    val (path, info) = firstCommitInfo(version)
    def missing(cls: ErrorClass, what: String) = new CorruptLogException(path.toString, s"the table has the feature " +
      s"inCommitTimestamp enabled, which requires $what in every commit, but commit version $version has none", errorClass = cls)
    val node = info.getOrElse(throw missing(ErrorClass.MissingCommitInfo, "a commitInfo as its first action"))
    Option(node.get("inCommitTimestamp")).filter(_.isIntegralNumber).map(_.asLong)
      .getOrElse(throw missing(ErrorClass.MissingCommitTimestamp, "an inCommitTimestamp in its commitInfo"))
  }

  private def firstCommitInfo(version: Long): (Path, Option[JsonNode]) = {
    val path = FileNames.commitPath(logPath, version)
    val first = try store.firstLine(path) catch {
      case e: java.io.FileNotFoundException =>
        throw new MissingCommitException(tablePath.toString, version, s"${e.getMessage} is gone")
    }
    val node = first.map(line => try ActionCodec.mapper.readTree(line) catch {
      case e: Exception => throw new CorruptLogException(path.toString, s"line 1: ${e.getMessage}", e)
    })
    (path, node.flatMap(n => Option(n.get("commitInfo"))).filter(_.isObject))
  }

  /** The actions of one commit; a line that is not valid JSON names the file and line. */
  def readCommit(version: Long): Seq[Action] = readCommitLines(version, _ => true)

  /**
   * The actions of one commit but its adds, removes and change files, which are not parsed nor
   * held: what the driver reads of commits whose files a Spark job replays.
   */
  def readCommitWithoutFiles(version: Long): Seq[Action] = readCommitLines(version, line => !LogFiles.isFileAction(line))

  private def readCommitLines(version: Long, keep: String => Boolean): Seq[Action] = {
    val path = FileNames.commitPath(logPath, version)
    val lines = try store.readLines(path, keep) catch {
      case e: java.io.FileNotFoundException =>
        throw new MissingCommitException(tablePath.toString, version, s"${e.getMessage} is gone")
    }
    parse(path, lines)
  }

  /** The actions of a log compaction (a compaction deleted since the listing: its commits are read instead). */
  def readCompaction(c: LogCompaction): Seq[Seq[Action]] = {
    val path = c.file.getPath
    try Seq(firstOfEachKey(parse(path, store.readLines(path))))
    catch { case _: java.io.FileNotFoundException => (c.start to c.end).map(readCommit) }
  }

  /**
   * A compaction's actions with only the first of each file, transaction, domain, protocol and
   * metadata. The protocol wants each once, so their order would not matter; delta-kernel-rs,
   * which replays newest first, keeps the first it sees, and reads compactions that list their
   * commits' actions newest first, repeats included, as it does.
   */
  private def firstOfEachKey(actions: Seq[Action]): Seq[Action] = {
    val keys = new FileKeys(tablePath.toUri.toString)
    val seen = scala.collection.mutable.HashSet.empty[Any]
    actions.filter { a =>
      val key: Option[Any] = a match {
        case f: AddFile => Some(("file", keys.of(f.path), f.deletionVector.map(_.uniqueId)))
        case r: RemoveFile => Some(("file", keys.of(r.path), r.deletionVector.map(_.uniqueId)))
        case t: SetTransaction => Some(("txn", t.appId))
        case d: DomainMetadata => Some(("domain", d.domain))
        case _: Protocol => Some("protocol")
        case _: Metadata => Some("metaData")
        case _ => None
      }
      key.forall(seen.add)
    }
  }

  private def parse(path: Path, lines: Seq[String]): Seq[Action] =
    lines.zipWithIndex.map { case (line, i) =>
      try ActionCodec.fromJson(line) catch {
        case e: Exception =>
          throw new CorruptLogException(path.toString, s"line ${i + 1}: ${e.getMessage}", e)
      }
    }
}

object LogFiles {
  private val FileActionKeys = Seq("\"add\"", "\"remove\"", "\"cdc\"")

  /**
   * Whether a commit's line is an add, remove or cdc action, told by its first key without parsing
   * it (an action is a JSON object of one key). A line it cannot tell is parsed as any other.
   */
  private[log] def isFileAction(line: String): Boolean = {
    var i = 0
    while (i < line.length && line.charAt(i).isWhitespace) i += 1
    if (i >= line.length || line.charAt(i) != '{') return false
    i += 1
    while (i < line.length && line.charAt(i).isWhitespace) i += 1
    FileActionKeys.exists(k => line.startsWith(k, i))
  }

  /**
   * Entries for `commits` (version, file; oldest first), each timestamp at least one millisecond
   * after the previous (`previous` before the first), as Delta's file-time semantics want.
   */
  private def monotonic(commits: Seq[(Long, FileStatus)], previous: Long): IndexedSeq[CommitEntry] = {
    var last = previous
    commits.map { case (v, st) =>
      val ts = if (last == Long.MinValue) st.getModificationTime else math.max(st.getModificationTime, last + 1)
      last = ts
      CommitEntry(v, st, ts)
    }.toIndexedSeq
  }
}
