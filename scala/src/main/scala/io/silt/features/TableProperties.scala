package io.silt.features

import scala.util.Try

import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

/** The checkpoints a table writes (`delta.checkpointPolicy`). */
sealed abstract class CheckpointPolicy(val name: String) extends Serializable
object CheckpointPolicy {
  /** Classic single-file Parquet checkpoints. */
  case object Classic extends CheckpointPolicy("classic")
  /** UUID-named V2 checkpoints with sidecars (the `v2Checkpoint` feature). */
  case object V2 extends CheckpointPolicy("v2")
  val all: Seq[CheckpointPolicy] = Seq(Classic, V2)
}

/** How columns map to Parquet fields (`delta.columnMapping.mode`). */
sealed abstract class ColumnMappingMode(val name: String) extends Serializable
object ColumnMappingMode {
  case object None extends ColumnMappingMode("none")
  case object Name extends ColumnMappingMode("name")
  case object Id extends ColumnMappingMode("id")
  val all: Seq[ColumnMappingMode] = Seq(None, Name, Id)
}

/** How a commit is checked against concurrent commits; Delta Lake's levels and names (`delta.isolationLevel`). */
sealed abstract class IsolationLevel(val name: String) extends Serializable
object IsolationLevel {
  /** A concurrent commit adding files that may hold rows the transaction read conflicts, a blind append too. */
  case object Serializable extends IsolationLevel("Serializable")
  /** As Serializable, except that a concurrent blind append never conflicts. */
  case object WriteSerializable extends IsolationLevel("WriteSerializable")
  /** Only files the transaction read being removed conflict: for commits that change no data (OPTIMIZE, REORG). */
  case object SnapshotIsolation extends IsolationLevel("SnapshotIsolation")
  /** The levels a table may ask for. */
  val tableLevels: Seq[IsolationLevel] = Seq(Serializable, WriteSerializable)
}

object TableProperties {
  val EnableDeletionVectors = "delta.enableDeletionVectors"
  val CheckpointIntervalKey = "delta.checkpointInterval"
  val CheckpointPolicyKey = "delta.checkpointPolicy"
  val LogRetentionDuration = "delta.logRetentionDuration"
  val DeletedFileRetentionDuration = "delta.deletedFileRetentionDuration"
  val EnableExpiredLogCleanup = "delta.enableExpiredLogCleanup"
  /** How old the history DROP FEATURE … TRUNCATE HISTORY keeps is (Delta's default: 24 hours). */
  val TruncateHistoryRetentionDuration = "delta.dropFeatureTruncateHistory.retentionDuration"
  val DataSkippingNumIndexedCols = "delta.dataSkippingNumIndexedCols"
  val DataSkippingStatsColumns = "delta.dataSkippingStatsColumns"
  val WriteStatsAsStruct = "delta.checkpoint.writeStatsAsStruct"
  val AppendOnly = "delta.appendOnly"
  val IsolationLevelKey = "delta.isolationLevel"
  val ConstraintPrefix = "delta.constraints."
  val ColumnMappingModeKey = "delta.columnMapping.mode"
  val EnableChangeDataFeed = "delta.enableChangeDataFeed"
  val SymlinkManifestKey = "delta.compatibility.symlinkFormatManifest.enabled"
  val EnableTypeWidening = "delta.enableTypeWidening"
  val EnableInCommitTimestamps = "delta.enableInCommitTimestamps"
  val EnableRowTracking = "delta.enableRowTracking"
  val RowTrackingSuspended = "delta.rowTrackingSuspended"
  /** Written by the commit that turns in-commit timestamps on for a table with earlier commits. */
  val InCommitTimestampEnablementVersion = "delta.inCommitTimestampEnablementVersion"
  val InCommitTimestampEnablementTimestamp = "delta.inCommitTimestampEnablementTimestamp"
  /** Set by DROP FEATURE: the log before this version stays (`checkpointProtection`). */
  val RequireCheckpointProtectionBeforeVersion = "delta.requireCheckpointProtectionBeforeVersion"

  val OptimizeWriteKey = "delta.autoOptimize.optimizeWrite"
  val AutoCompactKey = "delta.autoOptimize.autoCompact"

  /** The `delta.*` properties Silt honours; setting any other is refused (see [[checkSettable]]). */
  val Honoured: Seq[String] = Seq(EnableDeletionVectors, CheckpointIntervalKey, CheckpointPolicyKey,
    LogRetentionDuration, DeletedFileRetentionDuration, EnableExpiredLogCleanup, TruncateHistoryRetentionDuration,
    DataSkippingNumIndexedCols,
    DataSkippingStatsColumns, WriteStatsAsStruct, AppendOnly, IsolationLevelKey, ColumnMappingModeKey, EnableChangeDataFeed, SymlinkManifestKey,
    EnableTypeWidening, EnableInCommitTimestamps, EnableRowTracking, RowTrackingSuspended, OptimizeWriteKey, AutoCompactKey)

  /**
   * Refuses properties that change a retention so that the log would be kept for less time than
   * removed files (time travel would find commits whose files VACUUM may already have deleted), as
   * Delta Lake does; properties that leave both retentions as they were pass, whatever they are.
   */
  def checkRetentions(table: String, before: Map[String, String], after: Map[String, String]): Unit = {
    val (was, now) = (TableProperties(before), TableProperties(after))
    val keys = Seq(LogRetentionDuration, DeletedFileRetentionDuration)
    if (keys.exists(k => was.get(k) != now.get(k)) && now.logRetentionMs < now.deletedFileRetentionMs) {
      throw new InvalidTableOperationException(s"$table: $LogRetentionDuration (${now.get(LogRetentionDuration)
        .getOrElse("interval 30 days")}) must not be shorter than $DeletedFileRetentionDuration (${now
        .get(DeletedFileRetentionDuration).getOrElse("interval 1 week")}): time travel would reach versions whose " +
        "files VACUUM may have deleted. Lengthen the log retention or shorten the other.")
    }
  }

  /**
   * Refuses to set a `delta.*` property Silt does not implement (a reader of the table would
   * trust it: a change data feed, column mapping, row tracking, …), naming it.
   */
  def checkSettable(keys: Iterable[String]): Unit =
    keys.find(k => k.toLowerCase.startsWith("delta.") && !Honoured.exists(_.equalsIgnoreCase(k)) &&
        !ProtocolRequest.isProtocolKey(k)).foreach { k =>
      throw new UnsupportedOptionException(k, s"table property $k is not implemented by Silt, so it cannot be " +
        s"set; Silt honours ${Honoured.mkString(", ")} (and the protocol's ${ProtocolRequest.MinReaderKey}, " +
        s"${ProtocolRequest.MinWriterKey}, ${ProtocolRequest.FeaturePrefix}<name>)")
    }
}

/**
 * Typed reads of the Delta table properties Silt uses, with their Delta defaults. Keys match
 * case-insensitively everywhere, as Delta's do; a value that does not parse names the property.
 */
final case class TableProperties(configuration: Map[String, String]) {
  import TableProperties._

  def get(key: String): Option[String] = configuration.find(_._1.equalsIgnoreCase(key)).map(_._2.trim)

  private def flag(key: String, default: Boolean): Boolean = get(key).map(_.toLowerCase) match {
    case Some("true") => true
    case Some("false") => false
    case Some(other) => throw new InvalidTableOperationException(s"$key must be true or false, not '$other'")
    case scala.None => default
  }

  private def oneOf[T](key: String, values: Seq[T], name: T => String, default: T): T = get(key).map { v =>
    values.find(name(_).equalsIgnoreCase(v)).getOrElse(throw new InvalidTableOperationException(
      s"$key must be ${values.map(name).mkString(" or ")}, not '$v'"))
  }.getOrElse(default)

  /** Reads every typed property Silt honours, so that a value that does not parse fails when it is set. */
  def validate(): Unit = {
    Seq[Any](deletionVectorsEnabled, optimizeWrite, autoCompact,
      appendOnly, typeWidening, rowTracking, rowTrackingSuspended, checkpointProtectedBefore, inCommitTimestamps,
      inCommitTimestampEnablement, changeDataFeed, expiredLogCleanup, writeStatsAsStruct, checkpointInterval, checkpointPolicy,
      isolationLevel, dataSkippingNumIndexedCols, logRetentionMs, deletedFileRetentionMs, truncateHistoryRetentionMs, columnMappingMode)
    if (rowTracking && rowTrackingSuspended) {
      throw new InvalidTableOperationException(s"$EnableRowTracking and $RowTrackingSuspended cannot both be true: a " +
        "table whose rows must all have ids cannot suspend giving them. Turn one off.")
    }
    if (symlinkManifest && deletionVectorsEnabled) {
      throw new InvalidTableOperationException(s"$SymlinkManifestKey and $EnableDeletionVectors cannot both be true: " +
        "symlink manifests cannot carry deletion vectors, so manifest readers would return deleted rows. Turn one off.")
    }
  }

  def isolationLevel: IsolationLevel = oneOf(IsolationLevelKey, IsolationLevel.tableLevels, (l: IsolationLevel) => l.name,
    IsolationLevel.Serializable)

  def deletionVectorsEnabled: Boolean = flag(EnableDeletionVectors, default = false)
  /** Whether writes to the table optimize (see write.OptimizedWrite); None when the table does not say. */
  def optimizeWrite: Option[Boolean] = get(OptimizeWriteKey).map(_ => flag(OptimizeWriteKey, default = false))
  /** Whether commits to the table compact small files after them (see optimize.AutoCompactHook); None: not said. */
  def autoCompact: Option[Boolean] = get(AutoCompactKey).map(_ => flag(AutoCompactKey, default = false))
  def appendOnly: Boolean = flag(AppendOnly, default = false)
  /** Whether ALTER COLUMN … TYPE may widen a column's type (the `typeWidening` feature). */
  def typeWidening: Boolean = flag(EnableTypeWidening, default = false)
  /** Whether every row has a stable id and commit version (the `rowTracking` feature). */
  def rowTracking: Boolean = flag(EnableRowTracking, default = false)
  /** Whether writers stop giving new rows ids, on a table that supports row tracking without enabling it. */
  def rowTrackingSuspended: Boolean = flag(RowTrackingSuspended, default = false)
  /** Whether each commit carries its time (`inCommitTimestamp`), which readers then use as the commit's time. */
  def inCommitTimestamps: Boolean = flag(EnableInCommitTimestamps, default = false)

  /** The version and in-commit timestamp of the commit that turned them on; None: on since version 0. */
  def inCommitTimestampEnablement: Option[(Long, Long)] = for {
    v <- get(InCommitTimestampEnablementVersion)
    t <- get(InCommitTimestampEnablementTimestamp)
  } yield (Try(v.toLong).toOption.getOrElse(throw new InvalidTableOperationException(
      s"$InCommitTimestampEnablementVersion must be a version, not '$v'")),
    Try(t.toLong).toOption.getOrElse(throw new InvalidTableOperationException(
      s"$InCommitTimestampEnablementTimestamp must be milliseconds since the epoch, not '$t'")))

  /** The version before which log cleanup deletes nothing (0: none). */
  def checkpointProtectedBefore: Long = get(RequireCheckpointProtectionBeforeVersion).map { v =>
    Try(v.toLong).toOption.filter(_ >= 0).getOrElse(throw new InvalidTableOperationException(
      s"$RequireCheckpointProtectionBeforeVersion must be a version (an integer >= 0), not '$v'"))
  }.getOrElse(0L)
  def changeDataFeed: Boolean = flag(EnableChangeDataFeed, default = false)
  /** Whether every commit keeps the symlink manifests (`_symlink_format_manifest/`) up to date. */
  def symlinkManifest: Boolean = flag(SymlinkManifestKey, default = false)
  def expiredLogCleanup: Boolean = flag(EnableExpiredLogCleanup, default = true)
  def writeStatsAsStruct: Boolean = flag(WriteStatsAsStruct, default = true)

  def checkpointInterval: Int = get(CheckpointIntervalKey).map { v =>
    Try(v.toInt).toOption.filter(_ > 0).getOrElse(
      throw new InvalidTableOperationException(s"$CheckpointIntervalKey must be a positive integer, not '$v'"))
  }.getOrElse(10)

  def checkpointPolicy: CheckpointPolicy = oneOf(CheckpointPolicyKey, CheckpointPolicy.all, (p: CheckpointPolicy) => p.name,
    CheckpointPolicy.Classic)

  def columnMappingMode: ColumnMappingMode = oneOf(ColumnMappingModeKey, ColumnMappingMode.all,
    (m: ColumnMappingMode) => m.name, ColumnMappingMode.None)

  /** Leading leaf columns with statistics; -1: all of them. */
  def dataSkippingNumIndexedCols: Int = get(DataSkippingNumIndexedCols).map { v =>
    Try(v.toInt).toOption.filter(_ >= -1).getOrElse(throw new InvalidTableOperationException(
      s"$DataSkippingNumIndexedCols must be an integer >= -1, not '$v'"))
  }.getOrElse(32)

  /** The columns with statistics, when named instead of counted. */
  def dataSkippingStatsColumns: Option[Seq[String]] =
    get(DataSkippingStatsColumns).map(_.split(",").toSeq.map(_.trim).filter(_.nonEmpty))

  /** The CHECK constraints, by lower-case name. */
  def checkConstraints: Map[String, String] = configuration.collect {
    case (k, v) if k.toLowerCase.startsWith(ConstraintPrefix) => k.substring(ConstraintPrefix.length).toLowerCase -> v
  }

  def logRetentionMs: Long = duration(LogRetentionDuration, "interval 30 days")
  def deletedFileRetentionMs: Long = duration(DeletedFileRetentionDuration, "interval 1 week")
  def truncateHistoryRetentionMs: Long = duration(TruncateHistoryRetentionDuration, "interval 24 hours")

  private def duration(key: String, default: String): Long = {
    val text = get(key).getOrElse(default)
    val withPrefix = if (text.toLowerCase.startsWith("interval")) text else s"interval $text"
    val interval = IntervalUtils.safeStringToInterval(UTF8String.fromString(withPrefix))
    if (interval == null) throw new InvalidTableOperationException(s"$key = '$text' is not a duration (e.g. 'interval 30 days')")
    interval.months * 30L * 86400000L + interval.days * 86400000L + interval.microseconds / 1000L
  }
}
