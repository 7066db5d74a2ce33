package io.silt.log

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import io.silt.checkpoint.{CheckpointInstance, CheckpointReader, LastCheckpoint}
import io.silt.errors._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Where a snapshot's replay starts: `from`, the first commit to apply, after a cached snapshot or
 * a checkpoint (with the protocol and metadata it starts with, and the session that reads it).
 */
private[log] final case class Start(from: Long, base: Option[Snapshot], checkpoint: Option[CheckpointInstance],
    protocolAndMetadata: Seq[Action], session: Option[SparkSession])

/** A commit as listed in `_delta_log/`: its version, file and commit timestamp. */
final case class CommitEntry(version: Long, file: FileStatus, timestamp: Long)

/**
 * What `_delta_log/` holds from version `from` on (`from` = 0: all of it): the commits (oldest
 * first) and the complete checkpoints (newest first).
 */
final case class LogListing(commits: IndexedSeq[CommitEntry], checkpoints: Seq[CheckpointInstance], from: Long = 0L) {
  private lazy val byVersion = commits.map(c => c.version -> c).toMap
  def commit(version: Long): Option[CommitEntry] = byVersion.get(version)
  def isEmpty: Boolean = commits.isEmpty && checkpoints.isEmpty
  def latestVersion: Long = (commits.map(_.version) ++ checkpoints.map(_.version)).max

  /** The oldest version a snapshot can be built for: commit 0 or the oldest checkpoint. */
  def earliestVersion: Long =
    if (byVersion.contains(0)) 0 else (checkpoints.map(_.version) ++ commits.headOption.map(_.version)).min

  /** Whether a partial listing starts where expected: with commit `from` or a checkpoint at `from`. */
  def startsAtFrom: Boolean = commit(from).isDefined || checkpoints.exists(_.version == from)
}

/**
 * The transaction log of one table: lists and reads commits and checkpoints, builds snapshots at
 * any version (from the newest usable checkpoint, falling back to older ones or to the commits
 * when one cannot be read), and remembers the latest snapshot so that a refresh only replays new
 * commits.
 */
final class TableLog private (val tablePath: Path, val hadoopConf: Configuration) extends Logging {
  val logPath: Path = new Path(tablePath, "_delta_log")
  val store: LogStore = new LogStore(hadoopConf)
  @volatile private var cached: Option[Snapshot] = None
  // The cached version's commit file (length, modification time): a folder deleted and written
  // again has other files at the same versions, and its cached snapshot must not be used.
  @volatile private var cachedCommit: Option[(Long, Long)] = None

  /**
   * Lists the log from `fromVersion` on (all of it by default). Commit timestamps are made
   * monotonic, as Delta's file-time semantics want.
   */
  def listing(fromVersion: Long = 0L): LogListing = {
    // Log names start with a 20-digit version: comparing that prefix as a string skips the older
    // history without parsing every name of a long log.
    val fromPrefix = f"$fromVersion%020d"
    val keep: String => Boolean =
      if (fromVersion <= 0) _ => true
      else name => name.compareTo(fromPrefix) >= 0 && FileNames.classify(name).exists(_.version >= fromVersion)
    val classified = store.list(logPath, keep).flatMap(st => FileNames.classify(st.getPath.getName).map(_ -> st))
    val commits = classified.collect { case (FileNames.CommitFile(v), st) => v -> st }.sortBy(_._1)
    var last = Long.MinValue
    val entries = commits.map { case (v, st) =>
      val ts = if (last == Long.MinValue) st.getModificationTime else math.max(st.getModificationTime, last + 1)
      last = ts
      CommitEntry(v, st, ts)
    }.toIndexedSeq
    val checkpoints = CheckpointInstance.complete(classified.collect { case (c: FileNames.CheckpointFile, st) => c -> st })
    LogListing(entries, checkpoints, math.max(fromVersion, 0L))
  }

  /** The commits in the log, oldest first. */
  def listCommits(): IndexedSeq[CommitEntry] = listing().commits

  /** The actions of one commit; a line that is not valid JSON names the file and line. */
  def readCommit(version: Long): Seq[Action] = {
    val path = FileNames.commitPath(logPath, version)
    val lines = try store.readLines(path) catch {
      case e: java.io.FileNotFoundException =>
        throw new MissingCommitException(tablePath.toString, version, s"${e.getMessage} is gone")
    }
    lines.zipWithIndex.map { case (line, i) =>
      try ActionCodec.fromJson(line) catch {
        case e: Exception =>
          throw new CorruptLogException(path.toString, s"line ${i + 1}: ${e.getMessage}", e)
      }
    }
  }

  /** Whether the path holds a table: the log's tail past the cached version suffices when there is one. */
  def exists: Boolean = cached.flatMap(probedTail).isDefined || {
    val from = cached.map(_.version).getOrElse(0L)
    (from > 0 && !listing(from).isEmpty) || !listing().isEmpty
  }

  /**
   * The newest snapshot, or None when the table has no commits yet. A cached snapshot is
   * refreshed by asking for the commits after it by name (listing a long `_delta_log/` costs more
   * than the rest of a refresh). Otherwise only the log's tail is listed: from the cached
   * snapshot's version (when more than a few commits follow it), else from the checkpoint
   * `_last_checkpoint` names (a hint, used only when that checkpoint is really there), else
   * everything. A first open lists, so that a commit missing in the middle is an error.
   */
  def latestOption(): Option[Snapshot] = cached.flatMap(probedTail) match {
    case Some(tail) => Some(build(tail, tail.latestVersion))
    case None =>
      val from = cached.map(_.version).orElse(LastCheckpoint.hintedVersion(store, logPath)).getOrElse(0L)
      val tail = if (from > 0) Some(listing(from)).filter(_.startsAtFrom) else None
      tail.orElse(Some(listing()).filterNot(_.isEmpty)).map(l => build(l, l.latestVersion))
  }

  def latest(): Snapshot = latestOption().getOrElse(throw notATable())

  /** The cached snapshot's commit and those after it; None when it is gone or too many follow. */
  private def probedTail(s: Snapshot): Option[LogListing] =
    Some(statOption(FileNames.commitPath(logPath, s.version))).filter(sameAsCached(s, _)).flatten.flatMap { first =>
      probeCommits(s.version + 1, s.timestamp).map(rest => LogListing(CommitEntry(s.version, first, s.timestamp) +: rest, Nil, s.version))
    }

  /**
   * Commits `from`, `from + 1`, … as long as they exist, asked for by name (commits are
   * contiguous), with timestamps made monotonic after `previous`; None past [[ProbeLimit]] of them.
   */
  private def probeCommits(from: Long, previous: Long): Option[IndexedSeq[CommitEntry]] = {
    val found = ArrayBuffer.empty[CommitEntry]
    var next = statOption(FileNames.commitPath(logPath, from))
    while (next.isDefined && found.size < ProbeLimit) {
      val st = next.get
      val last = found.lastOption.map(_.timestamp).getOrElse(previous)
      found += CommitEntry(from + found.size, st,
        if (last == Long.MinValue) st.getModificationTime else math.max(st.getModificationTime, last + 1))
      next = statOption(FileNames.commitPath(logPath, from + found.size))
    }
    if (next.isDefined) None else Some(found.toIndexedSeq)
  }

  /** Whether `st` is still the commit file the cached snapshot `s` was read from; the cache is dropped if not. */
  private def sameAsCached(s: Snapshot, st: Option[FileStatus]): Boolean = synchronized {
    val same = cached.exists(_ eq s) && st.exists(f => cachedCommit.contains((f.getLen, f.getModificationTime)))
    if (!same && cached.exists(_ eq s)) { cached = None; cachedCommit = None }
    same
  }

  private def statOption(path: Path): Option[FileStatus] =
    try Some(store.fs(path).getFileStatus(path)) catch { case _: java.io.FileNotFoundException => None }

  def snapshotAt(version: Long): Snapshot = {
    val l = listing()
    if (l.isEmpty) throw notATable()
    if (version < l.earliestVersion || version > l.latestVersion) {
      throw new VersionNotFoundException(s"cannot time travel $tablePath to version $version: " +
        s"available versions are ${l.earliestVersion} to ${l.latestVersion}")
    }
    build(l, version)
  }

  /** The snapshot of the last commit made at or before `timestampMs`. */
  def snapshotAsOf(timestampMs: Long): Snapshot = {
    val l = listing()
    if (l.isEmpty) throw notATable()
    val usable = l.commits.filter(_.version >= l.earliestVersion)
    val eligible = usable.filter(_.timestamp <= timestampMs)
    if (eligible.isEmpty) {
      val first = usable.headOption
      throw new VersionNotFoundException(s"cannot time travel $tablePath to timestamp " +
        s"${new java.sql.Timestamp(timestampMs)}: it is before the earliest available commit" +
        first.map(c => s" (version ${c.version} at ${new java.sql.Timestamp(c.timestamp)})").getOrElse(""))
    }
    build(l, eligible.last.version)
  }

  /**
   * The snapshot at `version`. Protocol and metadata are read now (from the commits, else from the
   * checkpoint's protocol and metaData columns alone); the files when first asked for.
   * `skip`: checkpoints found unreadable since, not to be tried again.
   */
  private def build(l: LogListing, version: Long, skip: Set[CheckpointInstance] = Set.empty): Snapshot = {
    val useCache = skip.isEmpty
    val base = if (useCache) cached.filter(s => s.version <= version && s.tablePath == tablePath) else None
    if (base.exists(_.version == version)) return base.get
    val unreadable = ArrayBuffer.empty[(CheckpointInstance, Throwable)]
    val start = startingPoint(l, version, base, skip, unreadable)
    // a partial listing whose checkpoint could not be read: the older history is needed after all
    if (start.from < l.from) return build(listing(), version, skip)
    val missing = (start.from to version).find(v => l.commit(v).isEmpty)
    missing.foreach { v =>
      unreadable.headOption.foreach { case (cp, e) =>
        throw new CorruptLogException(cp.files.map(_.getPath.toString).mkString(", "), s"this checkpoint cannot be " +
          s"read (${e.getMessage}) and commit $v, needed instead to read version $version, is gone", e)
      }
      throw new MissingCommitException(tablePath.toString, v, s"it is needed to read version $version " +
        s"(the commits after the checkpoint or version ${start.from - 1} must all be there)")
    }
    val commits = (start.from to version).map(readCommit)
    val actions = start.protocolAndMetadata.iterator ++ commits.iterator.flatten
    val (protocol, metadata) = actions.foldLeft((Option.empty[Protocol], Option.empty[Metadata])) {
      case ((_, m), p: Protocol) => (Some(p), m)
      case ((p, _), m: Metadata) => (p, Some(m))
      case (latest, _) => latest
    }
    if (protocol.isEmpty || metadata.isEmpty) {
      throw new CorruptLogException(logPath.toString, s"the log up to version $version holds no protocol or no metaData action")
    }
    val timestamp = l.commit(version).map(_.timestamp).getOrElse(l.checkpoints.find(_.version == version)
      .flatMap(_.files.headOption).map(_.getModificationTime).getOrElse(0L))
    val snapshot = new Snapshot(tablePath, version, protocol.get, metadata.get, timestamp,
      () => fileState(version, start, commits, skip))
    TableFeatures.checkReadable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    if (useCache) remember(snapshot, l.commit(version).map(_.file)) else snapshot
  }

  /**
   * Replays the files of a snapshot onto its start (cached snapshot or checkpoint). A checkpoint
   * whose file actions cannot be read is given up, with a warning, for an older one or the commits.
   */
  private def fileState(version: Long, start: Start, commits: Seq[Seq[Action]], skip: Set[CheckpointInstance]): SnapshotState = {
    val checkpointActions: Option[Seq[Action]] = (start.checkpoint, start.session) match {
      case (Some(cp), Some(session)) =>
        try Some(CheckpointReader.read(session, store, logPath, cp)) catch {
          case NonFatal(e) =>
            logWarning(s"Silt: cannot read the files of $cp of $tablePath, falling back to an older checkpoint " +
              s"or the commits: ${e.getMessage}")
            None
        }
      case _ => Some(Nil)
    }
    checkpointActions match {
      case None => build(listing(), version, skip ++ start.checkpoint).state
      case Some(actions) =>
        val replay = new LogReplay(tablePath, allowFilesOutside)
        start.base.foreach(replay.seed)
        replay.append(actions)
        commits.foreach(replay.append)
        replay.toState
    }
  }

  /** Caches `snapshot` when it is newer than the cached one and its commit file is known (`commit`). */
  private def remember(snapshot: Snapshot, commit: Option[FileStatus]): Snapshot = synchronized {
    if (commit.isDefined && cached.forall(_.version < snapshot.version)) {
      cached = Some(snapshot)
      cachedCommit = commit.map(st => (st.getLen, st.getModificationTime))
    }
    snapshot
  }

  /** Forgets the cached snapshot (the table's folder was dropped or replaced outside the log). */
  def forgetCached(): Unit = synchronized { cached = None; cachedCommit = None }

  /**
   * The snapshot after a commit this JVM just wrote at `version` with `actions`: applied to
   * `base` when that is the version before, without listing or reading the log again.
   */
  def committed(base: Option[Snapshot], version: Long, actions: Seq[Action]): Snapshot = {
    if (base.map(_.version).getOrElse(-1L) != version - 1) return snapshotAt(version)
    val replay = new LogReplay(tablePath)
    base.foreach(replay.seed)
    replay.append(actions)
    val file = store.fs(logPath).getFileStatus(FileNames.commitPath(logPath, version))
    remember(replay.toSnapshot(version, math.max(file.getModificationTime, base.map(_.timestamp + 1).getOrElse(Long.MinValue))),
      Some(file))
  }

  /**
   * Where a snapshot of `version` starts: a cached snapshot a few commits behind (when those
   * commits are all there), else the newest readable checkpoint (one whose protocol and metadata
   * cannot be read is skipped with a warning), else the cached snapshot, else commit 0.
   */
  private def startingPoint(l: LogListing, version: Long, base: Option[Snapshot], skip: Set[CheckpointInstance],
      unreadable: ArrayBuffer[(CheckpointInstance, Throwable)]): Start = {
    // A base's files are read before its successor is made, so that lazy snapshots never chain.
    def fromBase(s: Snapshot) = { s.state; Start(s.version + 1, Some(s), None, Seq(s.protocol, s.metadata), None) }
    val closeBase = base.filter(s => s.isStateLoaded && version - s.version <= CachedReplayLimit &&
      (s.version + 1 to version).forall(v => l.commit(v).isDefined))
    closeBase.map(fromBase).getOrElse {
      val usable = l.checkpoints.filter(c => c.version <= version && base.forall(_.version < c.version) && !skip(c))
      val spark = SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession)
      val fromCheckpoint = spark.iterator.flatMap(session => usable.iterator.flatMap { cp =>
        try Some(Start(cp.version + 1, None, Some(cp), CheckpointReader.readProtocolAndMetadata(session, store, logPath, cp),
          Some(session))) catch {
          case NonFatal(e) =>
            logWarning(s"Silt: cannot use $cp of $tablePath, falling back to an older checkpoint or the commits: ${e.getMessage}")
            unreadable += cp -> e
            None
        }
      }).nextOption()
      fromCheckpoint.orElse(base.map(fromBase)).getOrElse(Start(0L, None, None, Nil, None))
    }
  }

  /** Whether the log may name data and DV files outside the table directory (shallow clones do). */
  private def allowFilesOutside: Boolean = SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession)
    .exists(_.conf.get(TableLog.AllowFilesOutsideKey, "false").toBoolean)

  /** Commits past a cached snapshot that a refresh finds by name; more are listed. */
  private val ProbeLimit = 10

  /** Commits past a cached snapshot that are replayed onto it rather than read from a newer checkpoint. */
  private val CachedReplayLimit = 100

  private def notATable() = new NotADeltaTableException(tablePath.toString)
}

object TableLog {
  val AllowFilesOutsideKey = "spark.silt.read.allowFilesOutsideTable"
  private val logs = new ConcurrentHashMap[String, TableLog]()

  /** The log of the table at `path`, shared by all users of that path in this JVM. */
  def forPath(spark: SparkSession, path: String): TableLog =
    forPath(new Path(path), spark.sessionState.newHadoopConf())

  /** Drops the cached snapshot of the table at `path` (after DROP TABLE deleted or forgot its folder). */
  def forget(spark: SparkSession, path: String): Unit = {
    val p = new Path(path)
    logs.computeIfPresent(p.getFileSystem(spark.sessionState.newHadoopConf()).makeQualified(p).toString,
      (_, log) => { log.forgetCached(); log })
  }

  def forPath(path: Path, hadoopConf: Configuration): TableLog = {
    val fs = path.getFileSystem(hadoopConf)
    val qualified = fs.makeQualified(path)
    logs.computeIfAbsent(qualified.toString, _ => new TableLog(qualified, hadoopConf))
  }
}
