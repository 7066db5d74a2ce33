package io.silt.log

import io.silt.actions._
import io.silt.features._
import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import io.silt.errors.{CorruptLogException, MissingCommitException}
import io.silt.logstore.StorageFailure
import org.apache.spark.internal.Logging

/**
 * Where a snapshot's replay starts: `from`, the first commit to apply, after a cached snapshot or
 * a checkpoint (with the protocol and metadata it starts with). `scanned`: a large cached
 * snapshot's checkpoint scan, whose commits read already (its tail) precede `from`.
 */
private[log] final case class Start(from: Long, base: Option[Snapshot], checkpoint: Option[CheckpointInstance],
    protocolAndMetadata: Seq[Action], scanned: Option[CheckpointScan] = None)

/**
 * Builds the snapshot of a version from a listing: from a close cached snapshot, else the newest
 * readable checkpoint, else the commits. Protocol and metadata are read at once; the files when
 * first asked for. A checkpoint that cannot be read (missing, truncated, not decodable) is given
 * up, with a warning, for the next older candidate (and in the end for the commits alone); a storage
 * failure reading it fails the read instead (`StorageFailure`): the checkpoint may be fine, and the
 * commits of a large table are more than the driver should hold.
 */
final class SnapshotLoader(files: LogFiles, options: LogOptions, log: TableLog) extends Logging {
  private def tablePath = files.tablePath

  /** The snapshot at `version` of `listing` (a partial listing is completed when its checkpoint fails). */
  def load(listing: LogListing, version: Long, base: Option[Snapshot]): Snapshot = {
    val first = startingPoint(listing, version, base, Set.empty)
    // a partial listing whose checkpoint could not be read: the older history is needed after all
    val (l, (start, unreadable)) = if (first._1.from < listing.from) {
      val full = files.list()
      (full, startingPoint(full, version, base, Set.empty))
    } else (listing, first)
    checkListed(l, start, version, unreadable)
    // without a checkpoint the commits are the file list; after one, the few commits its scan holds cost less than a job
    val sinceStart = fileActions(l, start, version)
    if (start.base.isEmpty && start.scanned.isEmpty && sinceStart > options.maxDriverFiles &&
        (start.checkpoint.isEmpty || sinceStart > SnapshotLoader.TailOnDriver)) {
      return replayedByJob(l, start, version, unreadable)
    }
    val commits = readCommits(l, start, version, unreadable)
    val snapshot = withFiles(l, start, version, commits)
    TableFeatures.checkReadable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    snapshot
  }

  /** The latest protocol and metadata of `actions`, which a snapshot must have. */
  private def protocolAndMetadata(actions: Iterator[Action], version: Long): (Protocol, Metadata) = {
    val (protocol, metadata) = actions.foldLeft((Option.empty[Protocol], Option.empty[Metadata])) {
      case ((_, m), p: Protocol) => (Some(p), m)
      case ((p, _), m: Metadata) => (p, Some(m))
      case (latest, _) => latest
    }
    if (protocol.isEmpty || metadata.isEmpty) {
      throw new CorruptLogException(files.logPath.toString,
        s"the log up to version $version holds no protocol or no metaData action")
    }
    (protocol.get, metadata.get)
  }

  /** About the files the commits after `start` add or remove (their bytes over [[SnapshotLoader.BytesPerFileAction]]). */
  private def fileActions(l: LogListing, start: Start, version: Long): Long =
    (start.from to version).iterator.map(v => l.commit(v).get.file.getLen).sum / SnapshotLoader.BytesPerFileAction

  /**
   * The snapshot at `version` whose commits after `start` add more files than the driver should
   * hold: those commits are read for their other actions only (protocol, metadata, transactions,
   * domains), and its files are replayed by a Spark job when a scan first needs them
   * ([[DistributedReplay]]; by the driver when no job can, as it replays any log).
   */
  private def replayedByJob(l: LogListing, start: Start, version: Long,
      unreadable: Seq[(CheckpointInstance, Throwable)]): Snapshot = {
    logInfo(s"Silt: the commits ${start.from} to $version of $tablePath add or remove about ${fileActions(l, start, version)} " +
      s"files, more than ${io.silt.config.SiltSettings.SnapshotMaxDriverFiles.key} (${options.maxDriverFiles}): a Spark " +
      "job replays its files rather than the driver")
    val others = (start.from to version).map(files.readCommitWithoutFiles)
    val (protocol, metadata) = protocolAndMetadata(start.protocolAndMetadata.iterator ++ others.iterator.flatten, version)
    val kept = new LogReplay(tablePath, options.allowFilesOutside)
    start.checkpoint.foreach(cp => kept.append(CheckpointReader.readTransactionsAndDomains(files.store, files.logPath, cp)))
    others.foreach(kept.append)
    val state = kept.toState
    val commitPaths = (start.from to version).map(v => l.commit(v).get.file.getPath)
    val replayed = new ReplayedLog(state.transactions, state.domains,
      () => DistributedReplay.installed.flatMap(_.files(log, version, metadata, start.checkpoint, commitPaths)),
      new LogReplay(tablePath, options.allowFilesOutside))
    val snapshot = new Snapshot(tablePath, version, protocol, metadata, l.timestampOf(version),
      () => fileState(version, start, readCommits(l, start, version, unreadable)), replayed = Some(replayed))
    TableFeatures.checkReadable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    snapshot
  }

  /** The snapshot at `version` of `start` and the `commits` after it, whose files the driver reads when asked for them. */
  private def withFiles(l: LogListing, start: Start, version: Long, commits: Seq[Seq[Action]]): Snapshot = {
    val (protocol, metadata) = protocolAndMetadata(start.protocolAndMetadata.iterator ++ commits.iterator.flatten, version)
    // from a checkpoint, a large table's scans can read its row groups instead of a file list
    val scan = start.scanned.map(s => commits.foldLeft(s)(_ appended _))
      .orElse(start.checkpoint.filter(_ => start.base.isEmpty).map(new CheckpointScan(files, options, _, commits)))
    val sinceCheckpoint = if (start.scanned.isDefined) scan.get.tail else commits
    new Snapshot(tablePath, version, protocol, metadata, l.timestampOf(version),
      () => fileState(version, start, sinceCheckpoint), checkpointScan = scan)
  }

  /**
   * `base` with `actions` (the commit at `base.version + 1`, made at `timestamp`) applied; None
   * when `base` is a large table's snapshot with too many commits after its checkpoint already (a
   * newer checkpoint is to be read instead: applying them to its file list would read it).
   */
  def applied(base: Option[Snapshot], version: Long, actions: Seq[Action], timestamp: Long): Option[Snapshot] =
    base.filter(_.scansCheckpoint) match {
      // a large table's file list is not read for a commit: the new snapshot is its checkpoint with one more commit
      case Some(b) => Some(b.checkpointScan.get).filter(_.tail.size < SnapshotLoader.CachedReplayLimit).map { scan =>
        val next = scan.appended(actions)
        val protocol = actions.collect { case p: Protocol => p }.lastOption.getOrElse(b.protocol)
        val metadata = actions.collect { case m: Metadata => m }.lastOption.getOrElse(b.metadata)
        val start = Start(version + 1, None, Some(next.checkpoint), Nil)
        new Snapshot(tablePath, version, protocol, metadata, timestamp, () => fileState(version, start, next.tail),
          checkpointScan = Some(next))
      }
      // a replayed one's is not either, and its successor is read as it was: from the log
      case None if base.exists(b => b.replayed.isDefined && !b.isStateLoaded) => None
      case None =>
        val replay = new LogReplay(tablePath, options.allowFilesOutside)
        base.foreach(replay.seed)
        replay.append(actions)
        Some(replay.toSnapshot(version, timestamp))
    }

  /**
   * The commits from `start` to `version`, which must all be listed, as groups of actions to
   * replay in order: one per commit, or one per log compaction that replaces a run of them.
   */
  private def readCommits(l: LogListing, start: Start, version: Long,
      unreadable: Seq[(CheckpointInstance, Throwable)]): Seq[Seq[Action]] = {
    checkListed(l, start, version, unreadable)
    if (!options.useCompactions) (start.from to version).map(files.readCommit)
    else l.cover(start.from, version).flatMap {
      case Left(compaction) => files.readCompaction(compaction)
      case Right(v) => Seq(files.readCommit(v))
    }
  }

  /** Fails unless the commits from `start` to `version` are all listed, naming the checkpoint they had to replace. */
  private def checkListed(l: LogListing, start: Start, version: Long, unreadable: Seq[(CheckpointInstance, Throwable)]): Unit =
    (start.from to version).find(v => l.commit(v).isEmpty).foreach { v =>
      unreadable.headOption.foreach { case (cp, e) =>
        throw new CorruptLogException(cp.files.map(_.getPath.toString).mkString(", "), s"this checkpoint cannot be " +
          s"read (${e.getMessage}) and commit $v, needed instead to read version $version, is gone", e)
      }
      throw new MissingCommitException(tablePath.toString, v, s"it is needed to read version $version " +
        s"(the commits after the checkpoint or version ${start.from - 1} must all be there)")
    }

  /**
   * The files of the snapshot at `version`: its start's (cached snapshot or checkpoint) with the
   * commits after it replayed. Each checkpoint whose file actions cannot be read is skipped for
   * the next candidate; the candidates end with the commits alone, so the loop ends.
   */
  private def fileState(version: Long, first: Start, firstCommits: Seq[Seq[Action]]): SnapshotState = {
    var start = first
    var commits = firstCommits
    var skip = Set.empty[CheckpointInstance]
    // why each skipped checkpoint could not be read: the error, should the commits not cover the table
    val failed = ArrayBuffer.empty[(CheckpointInstance, Throwable)]
    var state: Option[SnapshotState] = None
    while (state.isEmpty) {
      checkpointActions(start) match {
        case Right(actions) =>
          val replay = new LogReplay(tablePath, options.allowFilesOutside)
          start.base.foreach(replay.seed)
          replay.append(actions)
          commits.foreach(replay.append)
          state = Some(replay.toState)
        case Left(failure) =>
          skip += failure._1
          failed += failure
          val l = files.list()
          val (next, unreadable) = startingPoint(l, version, None, skip)
          start = next
          commits = readCommits(l, next, version, failed.toSeq ++ unreadable)
      }
    }
    state.get
  }

  /** The file actions of the start's checkpoint (none without one), or why they cannot be read. */
  private def checkpointActions(start: Start): Either[(CheckpointInstance, Throwable), Seq[Action]] = start.checkpoint match {
    case Some(cp) =>
      try Right(CheckpointReader.read(files.store, files.logPath, cp)) catch {
        case NonFatal(e) if StorageFailure.of(e).isEmpty =>
          logWarning(s"Silt: cannot read the files of $cp of $tablePath, falling back to an older checkpoint " +
            s"or the commits: ${e.getMessage}")
          Left(cp -> e)
      }
    case None => Right(Nil)
  }

  /**
   * Where a snapshot of `version` starts: a cached snapshot a few commits behind (when those
   * commits are all there; a large one's checkpoint scan, when no newer checkpoint is listed), else
   * the newest readable checkpoint not in `skip` (one whose protocol and metadata cannot be read is
   * skipped with a warning and returned among the unreadable), else the cached snapshot, else
   * commit 0.
   */
  private def startingPoint(l: LogListing, version: Long, givenBase: Option[Snapshot],
      skip: Set[CheckpointInstance]): (Start, Seq[(CheckpointInstance, Throwable)]) = {
    // A large table's file list is not read to build on it: its checkpoint scan takes the commits
    // after it, unless a newer checkpoint is listed (then that is the start).
    val base = givenBase.filterNot(s => s.scansCheckpoint || (s.replayed.isDefined && !s.isStateLoaded))
    val extended = givenBase.filter(_.scansCheckpoint).map(s => (s, s.checkpointScan.get)).filter { case (s, scan) =>
      s.version < version && !skip(scan.checkpoint) &&
        scan.tail.size + (version - s.version) <= SnapshotLoader.CachedReplayLimit &&
        (s.version + 1 to version).forall(v => l.commit(v).isDefined) &&
        !l.checkpoints.exists(c => c.version > scan.checkpoint.version && c.version <= version && !skip(c))
    }.map { case (s, scan) => Start(s.version + 1, None, Some(scan.checkpoint), Seq(s.protocol, s.metadata), Some(scan)) }
    // A base's files are read before its successor is made, so that lazy snapshots never chain.
    def fromBase(s: Snapshot) = { s.state; Start(s.version + 1, Some(s), None, Seq(s.protocol, s.metadata)) }
    val unreadable = ArrayBuffer.empty[(CheckpointInstance, Throwable)]
    val closeBase = base.filter(s => s.isStateLoaded && version - s.version <= SnapshotLoader.CachedReplayLimit &&
      (s.version + 1 to version).forall(v => l.commit(v).isDefined))
    val start = extended.orElse(closeBase.map(fromBase)).getOrElse {
      val usable = l.checkpoints.filter(c => c.version <= version && base.forall(_.version < c.version) && !skip(c))
      val fromCheckpoint = usable.iterator.flatMap { cp =>
        try Some(Start(cp.version + 1, None, Some(cp), CheckpointReader.readProtocolAndMetadata(files.store, files.logPath, cp)))
        catch {
          case NonFatal(e) if StorageFailure.of(e).isEmpty =>
            logWarning(s"Silt: cannot use $cp of $tablePath, falling back to an older checkpoint or the commits: ${e.getMessage}")
            unreadable += cp -> e
            None
        }
      }.find(_ => true)
      fromCheckpoint.orElse(base.map(fromBase)).getOrElse(Start(0L, None, None, Nil))
    }
    (start, unreadable.toSeq)
  }
}

object SnapshotLoader {
  /** Commits past a cached snapshot that are replayed onto it rather than read from a newer checkpoint. */
  private val CachedReplayLimit = 100

  /**
   * About the bytes of commit JSON an add takes with its statistics: commits' bytes over it are
   * about their file actions, and about the heap their parsed actions take in files' worth.
   */
  val BytesPerFileAction = 350L

  /** The file actions after a checkpoint that are read on the driver however few files it should hold. */
  private val TailOnDriver = 10000L
}
