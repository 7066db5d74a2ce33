package io.silt.log

import io.silt.actions._
import io.silt.logstore._
import io.silt.config.{SiltSettings, TableFileSystem}
import io.silt.errors._
import io.silt.features.TableProperties
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession

/** How a table's log is read, captured from the session when the table is opened. */
final case class LogOptions(allowFilesOutside: Boolean = true, logStores: Map[String, String] = Map.empty,
    useCompactions: Boolean = true, maxDriverFiles: Long = 200000L, timeTravelWithinRetention: Boolean = true)

object LogOptions {
  /** The session's log options; opening a table is where a misspelt or invalid `spark.silt.*` setting is refused. */
  def from(spark: SparkSession): LogOptions = {
    SiltSettings.checkSession(spark.conf)
    LogOptions(allowFilesOutside = SiltSettings.AllowFilesOutsideTable(spark),
      logStores = SiltSettings.LogStoreImpl.byPart(spark.conf), useCompactions = SiltSettings.LogCompactionReads(spark),
      maxDriverFiles = SiltSettings.SnapshotMaxDriverFiles(spark),
      timeTravelWithinRetention = SiltSettings.TimeTravelRetentionCheck(spark))
  }
}

/**
 * The transaction log of one table: snapshots at any version, by timestamp and after a commit of
 * this JVM, its commits as a range, and the latest snapshot remembered so that a refresh only
 * replays new commits. Listing is [[LogFiles]]'s, building a snapshot [[SnapshotLoader]]'s.
 */
final class TableLog private[log] (val tablePath: Path, val hadoopConf: Configuration, val options: LogOptions) {
  val store: LogStore = LogStores.forPath(tablePath, hadoopConf, options.logStores)
  val files: LogFiles = new LogFiles(tablePath, store)
  private val loader = new SnapshotLoader(files, options, this)
  def logPath: Path = files.logPath

  @volatile private var cached: Option[Snapshot] = None
  // The cached version's commit file (length, modification time): a folder deleted and written
  // again has other files at the same versions, and its cached snapshot must not be used.
  @volatile private var cachedCommit: Option[(Long, Long)] = None

  /** Lists the log from `fromVersion` on (all of it by default). */
  def listing(fromVersion: Long = 0L): LogListing = files.list(fromVersion)

  /** The actions of one commit. */
  def readCommit(version: Long): Seq[Action] = files.readCommit(version)

  /** The commits a snapshot can be built for (from commit 0 or the oldest checkpoint on), oldest first. */
  def commits(): CommitRange = commitsOf(listing())

  // The latest properties say whether (and from which version) commits carry in-commit timestamps.
  private def commitsOf(l: LogListing): CommitRange =
    if (l.isEmpty) new CommitRange(files, IndexedSeq.empty, None)
    else new CommitRange(files, l.commits.filter(_.version >= l.earliestVersion),
      InCommitTimes.of(TableProperties(build(l, l.latestVersion).metadata.configuration)))

  /** The time of commit `version`: its in-commit timestamp, else its file's modification time. */
  def commitTime(version: Long): Long = files.inCommitTimestamp(version).getOrElse {
    val st = files.stat(version).getOrElse(throw new MissingCommitException(tablePath.toString, version, "it is gone"))
    st.getModificationTime
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
    val range = commitsOf(l)
    val found = range.lastAtOrBefore(timestampMs).getOrElse {
      throw new VersionNotFoundException(s"cannot time travel $tablePath to timestamp " +
        s"${new java.sql.Timestamp(timestampMs)}: it is before the earliest available commit" +
        range.entries.headOption.map(c => s" (version ${c.version} at ${new java.sql.Timestamp(c.timestamp)})").getOrElse(""),
        ErrorClass.TimestampBeforeFirstCommit)
    }
    // Delta Lake refuses a time after the latest commit rather than read the latest version: a
    // later commit would make the same query read other rows.
    if (range.entries.lastOption.exists(_.version == found.version) && found.timestamp < timestampMs) {
      val at = new java.sql.Timestamp(found.timestamp)
      throw new VersionNotFoundException(s"cannot time travel $tablePath to timestamp " +
        s"${new java.sql.Timestamp(timestampMs)}: it is after the latest commit (version ${found.version} at $at); " +
        s"use a time at or before $at", ErrorClass.TimestampAfterLatestCommit)
    }
    build(l, found.version)
  }

  /**
   * Refuses to `what` (read, restore, …) the table at `version`, older than the latest, when it was
   * committed longer ago than the table's delta.deletedFileRetentionDuration, as Delta Lake does:
   * VACUUM may have deleted some of its files, so it would read a part of its rows.
   */
  def checkWithinRetention(version: Long, what: String): Unit = if (options.timeTravelWithinRetention) {
    val current = latest()
    if (version < current.version) {
      val retentionMs = TableProperties(current.metadata.configuration).deletedFileRetentionMs
      val at = commitTime(version)
      if (at < System.currentTimeMillis() - retentionMs) {
        throw new VersionNotFoundException(s"cannot $what $tablePath at version $version, committed at " +
          s"${new java.sql.Timestamp(at)}: that is longer ago than its delta.deletedFileRetentionDuration " +
          s"(${retentionMs / 3600000.0} hours), so VACUUM may have deleted some of its files. Lengthen the retention, or " +
          s"set ${SiltSettings.TimeTravelRetentionCheck.key} = false to read what is left", ErrorClass.TimeTravelBeyondRetention)
      }
    }
  }

  /**
   * The snapshot after a commit this JVM just wrote at `version` with `actions`: applied to
   * `base` when that is the version before, without listing or reading the log again.
   */
  def committed(base: Option[Snapshot], version: Long, actions: Seq[Action]): Snapshot = {
    if (base.map(_.version).getOrElse(-1L) != version - 1) return snapshotAt(version)
    val file = store.fs(logPath).getFileStatus(FileNames.commitPath(logPath, version))
    val timestamp = math.max(file.getModificationTime, base.map(_.timestamp + 1).getOrElse(Long.MinValue))
    loader.applied(base, version, actions, timestamp).map(remember(_, Some(file))).getOrElse(snapshotAt(version))
  }

  /** Forgets the cached snapshot (the table's folder was dropped or replaced outside the log). */
  def forgetCached(): Unit = synchronized { cached = None; cachedCommit = None }

  /** The snapshot at `version` of listing `l`, built on the cached snapshot when it is older, and cached when newer. */
  private def build(l: LogListing, version: Long): Snapshot = {
    val base = cached.filter(_.version <= version)
    if (base.exists(_.version == version)) return base.get
    remember(loader.load(l, version, base), l.commit(version).map(_.file))
  }

  /** The cached snapshot's commit and those after it; None when it is gone or too many follow. */
  private def probedTail(s: Snapshot): Option[LogListing] =
    Some(files.stat(s.version)).filter(sameAsCached(s, _)).flatten.flatMap { first =>
      files.probe(s.version + 1, s.timestamp, TableLog.ProbeLimit)
        .map(rest => LogListing(CommitEntry(s.version, first, s.timestamp) +: rest, Nil, s.version))
    }

  /** Whether `st` is still the commit file the cached snapshot `s` was read from; the cache is dropped if not. */
  private def sameAsCached(s: Snapshot, st: Option[FileStatus]): Boolean = synchronized {
    val same = cached.exists(_ eq s) && st.exists(f => cachedCommit.contains((f.getLen, f.getModificationTime)))
    if (!same && cached.exists(_ eq s)) { cached = None; cachedCommit = None }
    same
  }

  /** Caches `snapshot` when it is newer than the cached one and its commit file is known (`commit`). */
  private def remember(snapshot: Snapshot, commit: Option[FileStatus]): Snapshot = synchronized {
    if (commit.isDefined && cached.forall(_.version < snapshot.version)) {
      cached = Some(snapshot)
      cachedCommit = commit.map(st => (st.getLen, st.getModificationTime))
    }
    snapshot
  }

  private def notATable() = new NotADeltaTableException(tablePath.toString)
}

object TableLog {
  /** Commits past a cached snapshot that a refresh finds by name; more are listed. */
  private val ProbeLimit = 10

  /**
   * The log of the table at `path`, read with the session's Hadoop configuration (and the file-system
   * settings given for that table, [[TableFileSystem]]) and settings.
   */
  def forPath(spark: SparkSession, path: String): TableLog =
    forPath(new Path(path), TableFileSystem.hadoopConf(spark, new Path(path)), LogOptions.from(spark))

  /** The log of the table at `path`, shared with every user of that path with the same configuration in this JVM. */
  def forPath(path: Path, hadoopConf: Configuration, options: LogOptions = LogOptions()): TableLog = {
    val qualified = path.getFileSystem(hadoopConf).makeQualified(path)
    TableLogCache.get(qualified, hadoopConf, options)
  }

  /** Drops the cached snapshots of the table at `path` (after DROP TABLE deleted or forgot its folder). */
  def forget(spark: SparkSession, path: String): Unit = {
    val p = new Path(path)
    TableLogCache.allFor(p.getFileSystem(TableFileSystem.hadoopConf(spark, p)).makeQualified(p)).foreach(_.forgetCached())
  }
}
