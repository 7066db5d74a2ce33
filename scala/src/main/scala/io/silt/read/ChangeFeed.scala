package io.silt.read

import scala.util.Try

import io.silt.config.{DeltaSessionKeys, SiltSettings, StatementKind}
import io.silt.dv.DeletionVectorDescriptor
import io.silt.errors.{ErrorClass, InvalidTableOperationException, MissingChangeDataException, VersionNotFoundException}
import io.silt.actions.{AddCDCFile, AddFile, Metadata, RemoveFile}
import io.silt.features.{ChangeDataFeed, ColumnMapping}
import io.silt.log.TableLog
import io.silt.partition.PartitionValues
import io.silt.spark.Identifiers
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, PartitionDirectory}
import org.apache.spark.sql.functions.coalesce
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/** Where a change-feed read starts or ends: a version, or a time (epoch milliseconds, and as given). */
sealed trait ChangeBound
object ChangeBound {
  final case class AtVersion(version: Long) extends ChangeBound
  final case class AtTime(millis: Long, text: String) extends ChangeBound
}

/**
 * Delta's change data feed, read: for each commit of a range of versions, the rows it deleted,
 * inserted or updated (before and after), with `_change_type`, `_commit_version` and
 * `_commit_timestamp`. A commit with change data files gives its changes in them; otherwise its
 * added files are inserts, its removed files deletes, and a file given a new deletion vector
 * deletes the rows the new vector adds (and brings back those it drops). Commits that change no
 * data (OPTIMIZE) give none. Every version of the range must have had the feed on.
 */
/**
 * One file a change-feed read scans and what its rows are: `changeType` None: the file's own
 * column says (a change data file); `keepOnly`: read only the rows this deletion vector marks.
 */
private[read] final case class ChangeFile(file: AddFile, keepOnly: Option[DeletionVectorDescriptor],
    changeType: Option[String], version: Long, timestamp: Long)

object ChangeFeed {
  private val ChangeTypeFromLog = "__silt_change_type"

  /** The range of versions of the read options startingVersion/startingTimestamp and endingVersion/endingTimestamp. */
  def rangeOf(spark: SparkSession, log: TableLog, options: Map[String, String]): (Long, Long) = {
    val lower = options.map { case (k, v) => k.toLowerCase -> v.trim }
    def bound(version: String, timestamp: String): Option[ChangeBound] = (lower.get(version.toLowerCase),
        lower.get(timestamp.toLowerCase)) match {
      case (Some(_), Some(_)) => throw new InvalidTableOperationException(s"give either $version or $timestamp, not both")
      case (Some(v), None) => Some(ChangeBound.AtVersion(Try(v.toLong).toOption.filter(_ >= 0).getOrElse(
        throw new VersionNotFoundException(s"$version '$v' is not a version number"))))
      case (None, Some(ts)) => Some(ChangeBound.AtTime(TimeTravel.parseTimestamp(spark, ts, timestamp), ts))
      case _ => None
    }
    val start = bound("startingVersion", "startingTimestamp").getOrElse(throw new InvalidTableOperationException(
      "a change-feed read (readChangeFeed) needs the option startingVersion or startingTimestamp"))
    range(log, start, bound("endingVersion", "endingTimestamp"), SiltSettings.ChangeFeedTimestampOutOfRange(spark))
  }

  /**
   * The versions from `start` to `end` (the latest when None), checked against the table's commits.
   * A timestamp after the latest commit is refused, as Delta Lake refuses it, unless `outOfRange`:
   * then an end is the latest version, and a start gives no versions (latest + 1 to latest).
   */
  def range(log: TableLog, start: ChangeBound, end: Option[ChangeBound], outOfRange: Boolean): (Long, Long) = {
    val latest = log.latest().version
    lazy val commits = log.commits()
    def afterLatest(option: String, text: String) = new VersionNotFoundException(s"$option $text is after the latest " +
      s"commit of ${log.tablePath} (version $latest at ${new java.sql.Timestamp(commits.entries.last.timestamp)}); set " +
      s"${SiltSettings.ChangeFeedTimestampOutOfRange.key} = true to read up to the latest commit",
      ErrorClass.TimestampAfterLatestCommit)
    val from = start match {
      case ChangeBound.AtVersion(v) => v
      case ChangeBound.AtTime(ms, text) => commits.firstAtOrAfter(ms).map(_.version) match {
        case Some(v) => v
        case None if outOfRange => return (latest + 1, latest)
        case None => throw afterLatest("startingTimestamp", text)
      }
    }
    if (from > latest) throw new VersionNotFoundException(s"startingVersion $from of the change feed of " +
      s"${log.tablePath} is after its latest version $latest")
    val to = end.map {
      case ChangeBound.AtVersion(v) => math.min(v, latest)
      case ChangeBound.AtTime(ms, text) =>
        if (!outOfRange && commits.entries.last.timestamp < ms) throw afterLatest("endingTimestamp", text)
        commits.lastAtOrBefore(ms).map(_.version).getOrElse(
          throw new VersionNotFoundException(s"endingTimestamp $text is before the first commit of ${log.tablePath}"))
    }.getOrElse(latest)
    if (to < from) throw new InvalidTableOperationException(s"the change feed range of ${log.tablePath} from version " +
      s"$from to $to is empty: the end is before the start")
    log.checkWithinRetention(from, "read the change data feed of")
    (from, to)
  }

  /** The change rows of versions `from` to `to`, in the columns of the table at `to`. */
  def changes(spark: SparkSession, log: TableLog, from: Long, to: Long): DataFrame = {
    val tablePath = log.tablePath.toString
    DeltaSessionKeys.refuseAt(spark.conf, Set(StatementKind.ChangeFeed), s"a read of the change data feed of $tablePath")
    // A start after the latest commit, read with timestampOutOfRange: no versions, no rows.
    if (from > to) return read(spark, log, log.snapshotAt(to).metadata, Nil, streaming = false)
    val metadata = log.snapshotAt(to).metadata
    var current = log.snapshotAt(from).metadata
    val acrossRenames = SiltSettings.ChangeFeedAcrossRenames(spark)
    val range = log.commits().slice(from, to)
    if (range.entries.headOption.forall(_.version != from)) {
      throw new VersionNotFoundException(s"the commits of $tablePath from version $from on are no longer in its log")
    }
    val files = range.entries.flatMap { entry =>
      val actions = range.actions(entry)
      actions.foreach { case m: Metadata => current = m; case _ => }
      check(tablePath, entry.version, current, metadata, from, to, acrossRenames)
      filesOf(actions, entry.version, entry.timestamp)
    }
    read(spark, log, metadata, files, streaming = false)
  }

  /** Refuses a version whose changes were not recorded (`m`: the metadata in effect then). */
  private[read] def requireRecorded(tablePath: String, version: Long, m: Metadata, range: String): Unit =
    if (!ChangeDataFeed.enabled(m)) {
      throw new MissingChangeDataException(tablePath, version, s"the change data feed of $tablePath $range cannot " +
        s"be read: changes were not recorded at version $version (the table property delta.enableChangeDataFeed " +
        "was not on). Start at a later version; DESCRIBE HISTORY shows when it was turned on")
    }

  private def check(tablePath: String, version: Long, m: Metadata, readAs: Metadata, from: Long, to: Long,
      acrossRenames: Boolean): Unit = {
    requireRecorded(tablePath, version, m, s"from version $from to $to")
    if (!SourceCommits.readableAs(SourceCommits.physical(m.schema), SourceCommits.physical(readAs.schema))) {
      throw new InvalidTableOperationException(s"the change data feed of $tablePath from version $from to $to " +
        s"cannot be read with the schema of version $to: a column changed type by version $version. Read the " +
        "versions before and after that change separately")
    }
    // As Delta Lake: rows of a column renamed or dropped since would be read under another name, or lost.
    val (then, now) = (logicalByPhysical(m.schema), logicalByPhysical(readAs.schema))
    then.find { case (physical, logical) => !now.get(physical).contains(logical) }.filterNot(_ => acrossRenames).foreach {
      case (physical, logical) =>
        val what = now.get(physical).fold("was dropped")(l => s"was renamed ${l.mkString(".")}")
        throw new InvalidTableOperationException(s"the change data feed of $tablePath from version $from to $to " +
          s"cannot be read with the schema of version $to: column ${logical.mkString(".")} of version $version $what " +
          s"by then. Read the versions before and after that change separately, or set " +
          s"${SiltSettings.ChangeFeedAcrossRenames.key} = true to read them all with the schema of version $to")
    }
  }

  /** Each column's logical path by its physical path (the same under no column mapping). */
  private def logicalByPhysical(s: StructType, physical: Seq[String] = Nil, logical: Seq[String] = Nil): Map[Seq[String], Seq[String]] =
    s.fields.flatMap { f =>
      val (p, l) = (physical :+ ColumnMapping.physicalName(f), logical :+ f.name)
      Seq(p -> l) ++ (f.dataType match { case st: StructType => logicalByPhysical(st, p, l); case _ => Nil })
    }.toMap

  /** What the actions of commit `version` (made at `timestamp`) give the feed to read. */
  private[read] def filesOf(actions: Seq[io.silt.actions.Action], version: Long, timestamp: Long): IndexedSeq[ChangeFile] = {
    def commit(file: AddFile, keepOnly: Option[DeletionVectorDescriptor], changeType: Option[String]) =
      ChangeFile(file, keepOnly, changeType, version, timestamp)
    val cdc = actions.collect { case c: AddCDCFile => c }
    if (cdc.nonEmpty) return cdc.map(c => commit(AddFile(c.path, c.partitionValues, c.size, 0L, dataChange = false),
      None, None)).toIndexedSeq
    val adds = actions.collect { case a: AddFile if a.dataChange => a }
    val removes = actions.collect { case r: RemoveFile if r.dataChange => r }
    val removedByPath = removes.map(r => r.path -> r).toMap
    val addedPaths = adds.map(_.path).toSet
    val fromAdds = adds.flatMap { a =>
      removedByPath.get(a.path) match {
        case None => Seq(commit(a, None, Some(ChangeDataFeed.Insert)))
        case Some(r) =>
          // The same file with another deletion vector: the rows the new one adds are deleted,
          // the rows only the old one had come back.
          a.deletionVector.filterNot(r.deletionVector.contains).map(dv =>
            commit(a.copy(deletionVector = r.deletionVector), Some(dv), Some(ChangeDataFeed.Delete))).toSeq ++
          r.deletionVector.filterNot(a.deletionVector.contains).map(dv =>
            commit(a, Some(dv), Some(ChangeDataFeed.Insert))).toSeq
      }
    }
    val fromRemoves = removes.filterNot(r => addedPaths(r.path)).map { r =>
      commit(AddFile(r.path, r.partitionValues, r.size.getOrElse(0L), 0L, dataChange = true,
        deletionVector = r.deletionVector), None, Some(ChangeDataFeed.Delete))
    }
    (fromAdds ++ fromRemoves).toIndexedSeq
  }

  /** The columns of the change rows of a table with this metadata. */
  def schemaOf(metadata: Metadata): StructType = ColumnMapping.logicalSchema(metadata.schema)
    .add(StructField(ChangeDataFeed.ChangeTypeColumn, StringType))
    .add(StructField(ChangeDataFeed.CommitVersionColumn, LongType))
    .add(StructField(ChangeDataFeed.CommitTimestampColumn, TimestampType))

  /**
   * One scan over every file: change data files carry `_change_type`; for the others the log tells
   * it. `streaming`: a micro-batch of a streaming read.
   */
  private[read] def read(spark: SparkSession, log: TableLog, metadata: Metadata, files: Seq[ChangeFile],
      streaming: Boolean): DataFrame = {
    val timeZone = spark.sessionState.conf.sessionLocalTimeZone
    val tablePartitions = metadata.partitionSchema
    val logical = ColumnMapping.logicalSchema(metadata.schema)
    val partitionSchema = ColumnMapping.logicalSchema(tablePartitions)
      .add(StructField(ChangeTypeFromLog, StringType)).add(StructField(ChangeDataFeed.CommitVersionColumn, LongType))
      .add(StructField(ChangeDataFeed.CommitTimestampColumn, TimestampType))
    val directories = files.groupBy(f => (f.file.partitionValues, f.changeType, f.version)).toSeq
      .sortBy(_._1._3).map { case ((_, changeType, _), group) =>
        val first = group.head
        val values = ChangeFileIndex.row(PartitionValues.rowOf(first.file, tablePartitions, timeZone), tablePartitions,
          changeType.map(UTF8String.fromString).orNull, first.version, first.timestamp * 1000L)
        PartitionDirectory(values, group.map(f => SiltFileIndex.statusOf(log.tablePath, f.file, f.keepOnly)))
      }
    val relation = HadoopFsRelation(
      location = new ChangeFileIndex(log.tablePath, partitionSchema, directories),
      partitionSchema = partitionSchema,
      dataSchema = logical.add(StructField(ChangeDataFeed.ChangeTypeColumn, StringType)),
      bucketSpec = None,
      fileFormat = new SiltParquetFileFormat(wholeFiles = false, () => ScanFiles(files.map(_.file.size).reduceOption(_ max _).getOrElse(0L),
        files.exists(f => f.file.deletionVector.isDefined || f.keepOnly.isDefined)), ColumnMapping.of(metadata)),
      options = Map("path" -> log.tablePath.toString))(org.apache.spark.sql.silt.ClassicApi.session(spark))
    val all = if (streaming) SparkInternals.streamingDataFrame(spark, relation)
      else SparkInternals.dataFrame(spark, org.apache.spark.sql.execution.datasources.LogicalRelation(relation))
    all.select(logical.fieldNames.toSeq.map(Identifiers.column) ++ Seq(
      coalesce(Identifiers.column(ChangeDataFeed.ChangeTypeColumn), Identifiers.column(ChangeTypeFromLog))
        .as(ChangeDataFeed.ChangeTypeColumn),
      Identifiers.column(ChangeDataFeed.CommitVersionColumn),
      Identifiers.column(ChangeDataFeed.CommitTimestampColumn)): _*)
  }
}
