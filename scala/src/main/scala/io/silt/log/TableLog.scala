package io.silt.log

import java.util.concurrent.ConcurrentHashMap

import scala.util.control.NonFatal

import io.silt.checkpoint.{CheckpointInstance, CheckpointReader}
import io.silt.errors._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/** A commit as listed in `_delta_log/`: its version, file and commit timestamp. */
final case class CommitEntry(version: Long, file: FileStatus, timestamp: Long)

/** What `_delta_log/` holds: the commits (oldest first) and the complete checkpoints (newest first). */
final case class LogListing(commits: IndexedSeq[CommitEntry], checkpoints: Seq[CheckpointInstance]) {
  private lazy val byVersion = commits.map(c => c.version -> c).toMap
  def commit(version: Long): Option[CommitEntry] = byVersion.get(version)
  def isEmpty: Boolean = commits.isEmpty && checkpoints.isEmpty
  def latestVersion: Long = (commits.map(_.version) ++ checkpoints.map(_.version)).max

  /** The oldest version a snapshot can be built for: commit 0 or the oldest checkpoint. */
  def earliestVersion: Long =
    if (byVersion.contains(0)) 0 else (checkpoints.map(_.version) ++ commits.headOption.map(_.version)).min
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

  /** Lists the log. Commit timestamps are made monotonic, as Delta's file-time semantics want. */
  def listing(): LogListing = {
    val classified = store.list(logPath).flatMap(st => FileNames.classify(st.getPath.getName).map(_ -> st))
    val commits = classified.collect { case (FileNames.CommitFile(v), st) => v -> st }.sortBy(_._1)
    var last = Long.MinValue
    val entries = commits.map { case (v, st) =>
      val ts = if (last == Long.MinValue) st.getModificationTime else math.max(st.getModificationTime, last + 1)
      last = ts
      CommitEntry(v, st, ts)
    }.toIndexedSeq
    val checkpoints = CheckpointInstance.complete(classified.collect { case (c: FileNames.CheckpointFile, st) => c -> st })
    LogListing(entries, checkpoints)
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

  def exists: Boolean = !listing().isEmpty

  /** The newest snapshot, or None when the table has no commits yet. */
  def latestOption(): Option[Snapshot] = {
    val l = listing()
    if (l.isEmpty) None else Some(build(l, l.latestVersion))
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

  private def build(l: LogListing, version: Long): Snapshot = {
    val base = cached.filter(s => s.version <= version && s.tablePath == tablePath)
    if (base.exists(_.version == version)) return base.get
    val replay = new LogReplay(tablePath)
    val from = startingPoint(l, version, base, replay)
    val missing = (from to version).find(v => l.commit(v).isEmpty)
    missing.foreach { v =>
      throw new MissingCommitException(tablePath.toString, v, s"it is needed to read version $version " +
        s"(the commits after the checkpoint or version ${from - 1} must all be there)")
    }
    (from to version).foreach(v => replay.append(readCommit(v)))
    if (!replay.hasProtocolAndMetadata) {
      throw new CorruptLogException(logPath.toString, s"the log up to version $version holds no protocol or no metaData action")
    }
    val timestamp = l.commit(version).map(_.timestamp).getOrElse(l.checkpoints.find(_.version == version)
      .flatMap(_.files.headOption).map(_.getModificationTime).getOrElse(0L))
    val snapshot = replay.toSnapshot(version, timestamp)
    TableFeatures.checkReadable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    if (cached.forall(_.version < version)) cached = Some(snapshot)
    snapshot
  }

  /**
   * Seeds `replay` with the best base for `version` and returns the first commit still to apply:
   * a cached snapshot, else the newest readable checkpoint (an unreadable one is skipped with a
   * warning), else nothing (replay from commit 0).
   */
  private def startingPoint(l: LogListing, version: Long, base: Option[Snapshot], replay: LogReplay): Long = {
    val usable = l.checkpoints.filter(c => c.version <= version && base.forall(_.version < c.version))
    val spark = SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession)
    for (cp <- usable; session <- spark) {
      try {
        val actions = CheckpointReader.read(session, store, logPath, cp)
        replay.append(actions)
        return cp.version + 1
      } catch {
        case NonFatal(e) =>
          logWarning(s"Silt: cannot use $cp of $tablePath, falling back to an older checkpoint or the commits: ${e.getMessage}")
          replay.reset()
      }
    }
    base match {
      case Some(s) => replay.seed(s); s.version + 1
      case None => 0L
    }
  }

  private def notATable() = new NotADeltaTableException(tablePath.toString)
}

object TableLog {
  private val logs = new ConcurrentHashMap[String, TableLog]()

  /** The log of the table at `path`, shared by all users of that path in this JVM. */
  def forPath(spark: SparkSession, path: String): TableLog =
    forPath(new Path(path), spark.sessionState.newHadoopConf())

  def forPath(path: Path, hadoopConf: Configuration): TableLog = {
    val fs = path.getFileSystem(hadoopConf)
    val qualified = fs.makeQualified(path)
    logs.computeIfAbsent(qualified.toString, _ => new TableLog(qualified, hadoopConf))
  }
}
