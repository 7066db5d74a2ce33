package io.silt.read

import java.nio.charset.StandardCharsets

import scala.collection.mutable

import io.silt.config.{DeltaSessionKeys, StatementKind}
import io.silt.errors.{InvalidTableOperationException, VersionNotFoundException}
import io.silt.actions.AddFile
import io.silt.features.ColumnMapping
import io.silt.log.{Snapshot, TableLog}
import io.silt.shims.ByteReadLimit
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.connector.read.streaming.{CompositeReadLimit, ReadAllAvailable, ReadLimit, ReadMaxFiles,
  SupportsTriggerAvailableNow, Offset => OffsetV2}
import org.apache.spark.sql.execution.streaming.{Offset, Source}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.StructType

/**
 * `spark.readStream.format("silt")`: the table's rows at the start (its initial snapshot, unless a
 * starting version or timestamp is given), then the files each later commit adds, in order, a
 * bounded number per micro-batch. Where a stream starts is resolved once and kept in the query's
 * checkpoint (`metadataPath`), so that a restarted query reads its first batch exactly as before.
 * The stream's schema is the table's when the query starts; see [[SourceCommits]] for the commits
 * that stop it. With `readChangeFeed`, the stream is the table's change data feed instead: the
 * initial snapshot's rows as inserts, then every change row of each commit.
 */
final class StreamingSource(spark: SparkSession, log: TableLog, options: SourceOptions, metadataPath: String)
    extends Source with SupportsTriggerAvailableNow {
  private val tablePath = log.tablePath.toString
  DeltaSessionKeys.refuseAt(spark.conf, Set(StatementKind.Stream), s"a stream reading $tablePath")
  /** The snapshot whose schema the stream has, and whose metadata reads every batch's files. */
  private val readSnapshot: Snapshot = log.latest()
  private val tableId = readSnapshot.metadata.id
  private val commits = new SourceCommits(tablePath, readSnapshot.metadata, readSnapshot.version, options)
  private val start: SourceOffset = StreamingSource.startOf(spark, log, readSnapshot, options, new Path(metadataPath))
  SourceOffset.requireTable(tableId, start.tableId, tablePath)
  if (options.readChangeFeed) {
    val atStart = if (start.version > readSnapshot.version || start.isInitialSnapshot) readSnapshot else log.snapshotAt(start.version)
    ChangeFeed.requireRecorded(tablePath, atStart.version, atStart.metadata, "read by this stream")
  }

  override val schema: StructType =
    if (options.readChangeFeed) ChangeFeed.schemaOf(readSnapshot.metadata)
    else ColumnMapping.logicalSchema(readSnapshot.metadata.schema)

  @volatile private var lastVersionForAvailableNow: Option[Long] = None
  /** The initial snapshot being read: its version, files and commit time. */
  private var initialFiles: Option[(Long, InitialSnapshot, Long)] = None
  private val commitFiles = mutable.SortedMap.empty[Long, IndexedSeq[ChangeFile]]
  /** Commit timestamps of the versions a change-feed stream walks, from one listing of the log's tail. */
  private val commitTimestamps = mutable.Map.empty[Long, Long]

  override def getDefaultReadLimit: ReadLimit = {
    val files = options.maxFilesPerTrigger.orElse(
      if (options.maxBytesPerTrigger.isEmpty) Some(SourceOptions.DefaultMaxFilesPerTrigger) else None)
    val limits = files.map(ReadLimit.maxFiles).toSeq ++ options.maxBytesPerTrigger.map(ByteReadLimit(_))
    if (limits.size == 1) limits.head else ReadLimit.compositeLimit(limits.toArray)
  }

  /** Trigger.AvailableNow reads the commits made until now, in micro-batches of the read limit. */
  override def prepareForTriggerAvailableNow(): Unit = lastVersionForAvailableNow = Some(log.latest().version)

  override def getOffset: Option[Offset] =
    throw new IllegalStateException("the Silt source is asked for offsets with a read limit (latestOffset)")

  override def latestOffset(startOffset: OffsetV2, limit: ReadLimit): OffsetV2 = synchronized {
    val from = Option(startOffset).map(SourceOffset.of(_, tableId, tablePath)).getOrElse(start)
    val latest = log.latest()
    SourceOffset.requireTable(latest.metadata.id, tableId, tablePath)
    val lastVersion = lastVersionForAvailableNow.fold(latest.version)(math.min(_, latest.version))
    val budget = new Budget(limit)
    var pos = from
    if (pos.isInitialSnapshot) {
      val files = initial(pos.version)
      pos = admit(files.size, files(_), pos, budget)
      if (pos.isInitialSnapshot) return pos
    }
    while (!budget.full && pos.version <= lastVersion) {
      val files = filesOf(pos.version)
      pos = admit(files.size, i => files(i.toInt).file, pos, budget)
    }
    if (startOffset == null && pos == from) null else pos
  }

  /** The position after the files (`count` of them: those of `pos`'s version) that `budget` admits from `pos` on. */
  private def admit(count: Long, file: Long => AddFile, pos: SourceOffset, budget: Budget): SourceOffset = {
    var index = pos.index + 1
    while (index < count && !budget.full) { budget.take(file(index)); index += 1 }
    if (index >= count) pos.nextVersion else pos.copy(index = index - 1)
  }

  override def getBatch(startOffset: Option[Offset], end: Offset): DataFrame = synchronized {
    val from = startOffset.map(SourceOffset.of(_, tableId, tablePath)).getOrElse(start)
    val to = SourceOffset.of(end, tableId, tablePath)
    val files = IndexedSeq.newBuilder[ChangeFile]
    var pos = from
    if (pos.isInitialSnapshot) {
      val snapshotFiles = initial(pos.version)
      val changeType = if (options.readChangeFeed) Some(io.silt.features.ChangeDataFeed.Insert) else None
      files ++= snapshotFiles.slice(pos.index + 1, if (to.isInitialSnapshot) to.index + 1 else snapshotFiles.size)
        .map(a => ChangeFile(a, None, changeType, pos.version, initialFiles.get._3))
      pos = pos.nextVersion
    }
    if (!to.isInitialSnapshot) {
      while (pos.version < to.version) { files ++= filesOf(pos.version).drop(pos.index.toInt + 1); pos = pos.nextVersion }
      if (pos.version == to.version && to.index > pos.index) files ++= filesOf(pos.version).slice(pos.index.toInt + 1, to.index.toInt + 1)
    }
    if (options.readChangeFeed) ChangeFeed.read(spark, log, readSnapshot.metadata, files.result(), streaming = true)
    else SparkInternals.streamingDataFrame(spark, SiltRelation.forFiles(spark, readSnapshot, files.result().map(_.file)))
  }

  override def commit(end: Offset): Unit = synchronized {
    val done = SourceOffset.of(end, tableId, tablePath)
    if (!done.isInitialSnapshot) { initialFiles.foreach(_._2.release()); initialFiles = None }
    commitFiles.keys.takeWhile(_ < done.version).toList.foreach(commitFiles.remove)
    commitTimestamps.keys.filter(_ < done.version - 1).toList.foreach(commitTimestamps.remove)
  }

  override def stop(): Unit = ()

  /**
   * The initial snapshot's files in a fixed order (oldest first), so that a restart numbers them
   * alike; for the change feed, their rows are inserts of the snapshot's version.
   */
  private def initial(version: Long): InitialSnapshot = initialFiles.filter(_._1 == version).map(_._2).getOrElse {
    val snapshot = if (version == readSnapshot.version) readSnapshot else log.snapshotAt(version)
    commits.checkMetadata(version, snapshot.metadata)
    val files = InitialSnapshot.of(spark, log, snapshot)
    initialFiles.foreach(_._2.release())
    initialFiles = Some((version, files, snapshot.timestamp))
    files
  }

  /** The files the stream reads of commit `version`, remembered until the stream has read past them. */
  private def filesOf(version: Long): IndexedSeq[ChangeFile] = commitFiles.getOrElse(version, {
    val actions = log.readCommit(version)
    val files = if (options.readChangeFeed) commits.changes(version, actions, timestampOf(version))
      else commits.admitted(version, actions).map(a => ChangeFile(a, None, None, version, 0L))
    if (commitFiles.size >= StreamingSource.CachedCommits) commitFiles.remove(commitFiles.lastKey)
    commitFiles(version) = files
    files
  })

  private def timestampOf(version: Long): Long = commitTimestamps.getOrElse(version, {
    log.listing(math.max(0L, version - 1)).commits.foreach(c => commitTimestamps(c.version) = c.timestamp)
    commitTimestamps.getOrElse(version, throw new VersionNotFoundException(s"commit $version of $tablePath is gone"))
  })

  override def toString: String = s"SiltSource[$tablePath]"

  /** How much of a read limit a micro-batch has used: it takes files until one of the limits is reached. */
  private final class Budget(limit: ReadLimit) {
    private val limits: Seq[ReadLimit] = limit match {
      case c: CompositeReadLimit => c.getReadLimits.toSeq
      case l => Seq(l)
    }
    private var files = 0L
    private var bytes = 0L
    def full: Boolean = limits.exists {
      case f: ReadMaxFiles => files >= f.maxFiles
      case ByteReadLimit(max) => bytes >= max
      case _: ReadAllAvailable => false
      case other => throw new IllegalStateException(s"read limit $other is not supported by the Silt source")
    }
    def take(a: AddFile): Unit = { files += 1; bytes += a.size }
  }
}

object StreamingSource {
  /** Commits whose files a source keeps between planning a micro-batch and reading it. */
  private val CachedCommits = 256
  private val StartFile = "silt-stream-start.json"

  /**
   * Where the stream starts: read from its checkpoint, or resolved from the options and kept there
   * (written whole, then renamed, so that a query killed meanwhile leaves none or all of it).
   */
  private def startOf(spark: SparkSession, log: TableLog, snapshot: Snapshot, options: SourceOptions,
      metadataPath: Path): SourceOffset = {
    val file = new Path(metadataPath, StartFile)
    val fs = file.getFileSystem(spark.sessionState.newHadoopConf())
    def read(): SourceOffset = {
      val in = fs.open(file)
      try SourceOffset.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8), log.tablePath.toString)
      finally in.close()
    }
    if (fs.exists(file)) return read()
    val resolved = resolve(log, snapshot, options)
    fs.mkdirs(metadataPath)
    val temp = new Path(metadataPath, s".$StartFile.${java.util.UUID.randomUUID()}.tmp")
    val out = fs.create(temp, false)
    try out.write(resolved.json.getBytes(StandardCharsets.UTF_8)) finally out.close()
    if (!fs.rename(temp, file)) { fs.delete(temp, false); if (!fs.exists(file)) throw new InvalidTableOperationException(
      s"cannot keep the stream's starting point in $metadataPath (checkpoint location)") }
    read()
  }

  private def resolve(log: TableLog, snapshot: Snapshot, options: SourceOptions): SourceOffset = {
    val id = snapshot.metadata.id
    def fromVersion(v: Long) = SourceOffset(id, v, SourceOffset.BaseIndex, isInitialSnapshot = false)
    options.start match {
      case StartingPoint.InitialSnapshot => SourceOffset(id, snapshot.version, SourceOffset.BaseIndex, isInitialSnapshot = true)
      case StartingPoint.AfterLatest => fromVersion(snapshot.version + 1)
      case StartingPoint.FromVersion(v) =>
        val available = log.commits().entries
        if (available.isEmpty || v < available.head.version || v > snapshot.version) {
          throw new VersionNotFoundException(s"cannot start a stream of ${log.tablePath} at version $v (startingVersion): " +
            s"available versions are ${available.headOption.fold(0L)(_.version)} to ${snapshot.version}")
        }
        fromVersion(v)
      case StartingPoint.FromTimestamp(ms, text) =>
        val available = log.commits()
        available.firstAtOrAfter(ms).map(c => fromVersion(c.version)).getOrElse {
          throw new VersionNotFoundException(s"cannot start a stream of ${log.tablePath} at timestamp $text " +
            s"(startingTimestamp): it is after the latest commit (version ${snapshot.version} at " +
            s"${new java.sql.Timestamp(available.entries.last.timestamp)}); use a timestamp at or before it, or " +
            "startingVersion 'latest'")
        }
    }
  }
}
