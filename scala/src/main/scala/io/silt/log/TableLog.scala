package io.silt.log

import java.util.concurrent.ConcurrentHashMap

import io.silt.errors._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession

/** A commit as listed in `_delta_log/`: its version, file and commit timestamp. */
final case class CommitEntry(version: Long, file: FileStatus, timestamp: Long)

/**
 * The transaction log of one table: lists and reads commits, builds snapshots at any version,
 * and remembers the latest snapshot so that a refresh only replays new commits.
 */
final class TableLog private (val tablePath: Path, val hadoopConf: Configuration) {
  val logPath: Path = new Path(tablePath, "_delta_log")
  val store: LogStore = new LogStore(hadoopConf)
  @volatile private var cached: Option[Snapshot] = None

  /** The commits in the log, oldest first, with monotonic commit timestamps; checks for gaps. */
  def listCommits(): IndexedSeq[CommitEntry] = {
    val commits = store.list(logPath).flatMap { st =>
      FileNames.classify(st.getPath.getName).collect { case FileNames.CommitFile(v) => v -> st }
    }.sortBy(_._1)
    if (commits.isEmpty) return IndexedSeq.empty
    if (commits.head._1 != 0) {
      throw new MissingCommitException(tablePath.toString, 0,
        s"the log starts at version ${commits.head._1}")
    }
    commits.sliding(2).foreach {
      case Seq((a, _), (b, _)) if b != a + 1 =>
        throw new MissingCommitException(tablePath.toString, a + 1, s"found $a and then $b")
      case _ =>
    }
    var last = Long.MinValue
    commits.map { case (v, st) =>
      // Delta's file-time semantics: a commit is never older than the one before it.
      val ts = math.max(st.getModificationTime, if (last == Long.MinValue) Long.MinValue else last + 1)
      last = ts
      CommitEntry(v, st, ts)
    }.toIndexedSeq
  }

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

  def exists: Boolean = listCommits().nonEmpty

  /** The newest snapshot, or None when the table has no commits yet. */
  def latestOption(): Option[Snapshot] = {
    val commits = listCommits()
    if (commits.isEmpty) None else Some(build(commits, commits.last.version))
  }

  def latest(): Snapshot = latestOption().getOrElse(throw notATable())

  def snapshotAt(version: Long): Snapshot = {
    val commits = listCommits()
    if (commits.isEmpty) throw notATable()
    if (version < commits.head.version || version > commits.last.version) {
      throw new VersionNotFoundException(s"cannot time travel $tablePath to version $version: " +
        s"available versions are ${commits.head.version} to ${commits.last.version}")
    }
    build(commits, version)
  }

  /** The snapshot of the last commit made at or before `timestampMs`. */
  def snapshotAsOf(timestampMs: Long): Snapshot = {
    val commits = listCommits()
    if (commits.isEmpty) throw notATable()
    val eligible = commits.filter(_.timestamp <= timestampMs)
    if (eligible.isEmpty) {
      throw new VersionNotFoundException(s"cannot time travel $tablePath to timestamp " +
        s"${new java.sql.Timestamp(timestampMs)}: it is before the earliest commit " +
        s"(version ${commits.head.version} at ${new java.sql.Timestamp(commits.head.timestamp)})")
    }
    build(commits, eligible.last.version)
  }

  private def build(commits: IndexedSeq[CommitEntry], version: Long): Snapshot = {
    val base = cached.filter(s => s.version <= version && s.tablePath == tablePath)
    if (base.exists(_.version == version)) return base.get
    val replay = new LogReplay(tablePath)
    base.foreach(replay.seed)
    val from = base.map(_.version + 1).getOrElse(commits.head.version)
    (from to version).foreach(v => replay.append(readCommit(v)))
    if (!replay.hasProtocolAndMetadata) {
      throw new CorruptLogException(logPath.toString,
        s"versions ${commits.head.version} to $version hold no protocol or no metaData action")
    }
    val snapshot = replay.toSnapshot(version, commits(version.toInt - commits.head.version.toInt).timestamp)
    TableFeatures.checkReadable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    if (cached.forall(_.version < version)) cached = Some(snapshot)
    snapshot
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
