package io.silt.features

import io.silt.config.{DeltaKey, DeltaKeyTreatment, StatementKind}
import io.silt.errors.{ErrorClass, InvalidTableOperationException, UnsupportedOptionException}

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

/**
 * Delta Lake's table properties, each in one class: honoured (declared here, each a [[TableProperty]]: its
 * key, default, values and meaning; what validates a table's properties and what may be set derive from
 * this list), or, for those Delta Lake 4.4 declares that Silt does not implement, a line of
 * `delta-table-properties.tsv` beside this class (no effect, or not implemented with the statements another
 * value would change: accepted at Delta's default, refused otherwise). tests/test_table_properties.py compares
 * the two with the reference's own registry, so that a property of a new Delta release cannot go unclassified.
 */
object TableProperties {
  import TableProperty._

  val EnableDeletionVectors: TableProperty[Boolean] = flag("delta.enableDeletionVectors", default = false,
    "DELETE, UPDATE and MERGE mark removed rows in deletion vectors instead of rewriting files")
  val CheckpointInterval: TableProperty[Int] = int("delta.checkpointInterval", 10, min = 1,
    "commits between two checkpoints")
  val CheckpointPolicyProperty: TableProperty[CheckpointPolicy] = oneOf("delta.checkpointPolicy", CheckpointPolicy.all,
    (p: CheckpointPolicy) => p.name, CheckpointPolicy.Classic, "classic single-file checkpoints, or V2 ones with sidecars")
  val LogRetentionDuration: TableProperty[Long] = duration("delta.logRetentionDuration", "interval 30 days",
    "how long commits are kept (time travel's reach); log cleanup deletes older ones a checkpoint covers")
  val DeletedFileRetentionDuration: TableProperty[Long] = duration("delta.deletedFileRetentionDuration",
    "interval 1 week", "how long VACUUM keeps files a commit removed")
  val EnableExpiredLogCleanup: TableProperty[Boolean] = flag("delta.enableExpiredLogCleanup", default = true,
    "checkpoints delete commits older than the log retention")
  val TruncateHistoryRetentionDuration: TableProperty[Long] = duration(
    "delta.dropFeatureTruncateHistory.retentionDuration", "interval 24 hours",
    "how much history DROP FEATURE … TRUNCATE HISTORY keeps")
  val DataSkippingNumIndexedCols: TableProperty[Int] = int("delta.dataSkippingNumIndexedCols", 32, min = -1,
    "leading leaf columns with statistics (-1: all)")
  val DataSkippingStatsColumns: TableProperty[Option[Seq[String]]] = columns("delta.dataSkippingStatsColumns",
    "the columns with statistics, named instead of counted")
  val WriteStatsAsStruct: TableProperty[Boolean] = flag("delta.checkpoint.writeStatsAsStruct", default = true,
    "checkpoints carry statistics and partition values as typed columns (stats_parsed, partitionValues_parsed)")
  val AppendOnly: TableProperty[Boolean] = flag("delta.appendOnly", default = false,
    "only appends: DELETE, UPDATE, MERGE that changes rows and overwrites are refused")
  val IsolationLevelProperty: TableProperty[IsolationLevel] = oneOf("delta.isolationLevel", IsolationLevel.tableLevels,
    (l: IsolationLevel) => l.name, IsolationLevel.Serializable, "how a commit is checked against concurrent ones")
  val ColumnMappingModeProperty: TableProperty[ColumnMappingMode] = oneOf("delta.columnMapping.mode",
    ColumnMappingMode.all, (m: ColumnMappingMode) => m.name, ColumnMappingMode.None,
    "columns found in Parquet by name, by id, or (none) by their own name")
  val ColumnMappingMaxColumnId: TableProperty[Long] = long("delta.columnMapping.maxColumnId", 0L,
    "an integer >= 0", "the largest column id column mapping has given (kept by Silt)").kept
  val EnableChangeDataFeed: TableProperty[Boolean] = flag("delta.enableChangeDataFeed", default = false,
    "commits record their changed rows, read by the change data feed")
  val SymlinkManifest: TableProperty[Boolean] = flag("delta.compatibility.symlinkFormatManifest.enabled",
    default = false, "every commit keeps the symlink manifests (_symlink_format_manifest/) up to date")
  val EnableTypeWidening: TableProperty[Boolean] = flag("delta.enableTypeWidening", default = false,
    "ALTER COLUMN … TYPE may widen a column's type")
  val EnableInCommitTimestamps: TableProperty[Boolean] = flag("delta.enableInCommitTimestamps", default = false,
    "each commit carries its time, which readers use as the commit's time")
  val InCommitTimestampEnablementVersion: TableProperty[Option[Long]] = optionalLong(
    "delta.inCommitTimestampEnablementVersion", "a version", "the commit that turned in-commit timestamps on " +
      "(kept by Silt)").kept
  val InCommitTimestampEnablementTimestamp: TableProperty[Option[Long]] = optionalLong(
    "delta.inCommitTimestampEnablementTimestamp", "milliseconds since the epoch", "that commit's in-commit " +
      "timestamp (kept by Silt)").kept
  val EnableRowTracking: TableProperty[Boolean] = flag("delta.enableRowTracking", default = false,
    "every row has a stable id and the version that last changed it")
  val RowTrackingSuspended: TableProperty[Boolean] = flag("delta.rowTrackingSuspended", default = false,
    "writers stop giving new rows ids (a table that supports row tracking without enabling it)")
  val RequireCheckpointProtectionBeforeVersion: TableProperty[Long] = long(
    "delta.requireCheckpointProtectionBeforeVersion", 0L, "a version (an integer >= 0)",
    "the log before this version stays (kept by Silt: DROP FEATURE sets it, for checkpointProtection)").kept
  val SetTransactionRetentionDuration: TableProperty[Option[Long]] = optionalDuration(
    "delta.setTransactionRetentionDuration", "how long an idempotent write's application id (txn) counts: an " +
      "older one is expired, and a write with its version runs again (unset: always counts)")
  val OptimizeWrite: TableProperty[Option[Boolean]] = optionalFlag("delta.autoOptimize.optimizeWrite",
    "writes gather their rows into fewer, larger files (unset: the session decides)")
  val AutoCompact: TableProperty[Option[Boolean]] = optionalFlag("delta.autoOptimize.autoCompact",
    "commits compact small files after them (unset: the session decides)")
  val EnableIcebergCompatV1: TableProperty[Boolean] = flag("delta.enableIcebergCompatV1", default = false,
    "writes keep the table convertible to Iceberg (version 1: no arrays or maps, no deletion vectors)")
  val EnableIcebergCompatV2: TableProperty[Boolean] = flag("delta.enableIcebergCompatV2", default = false,
    "writes keep the table convertible to Iceberg (version 2: field ids for array and map fields, no deletion " +
      "vectors)")
  val UniversalFormats: TableProperty[Set[String]] = formats("delta.universalFormat.enabledFormats",
    Seq(UniversalFormat.Iceberg), "the formats whose metadata each commit writes beside the log (iceberg: " +
      "metadata/, which Iceberg readers read; an icebergCompat version must be enabled)")

  /** Every table property Silt honours, each once. */
  val all: Seq[TableProperty[_]] = Seq(EnableDeletionVectors, CheckpointInterval, CheckpointPolicyProperty,
    LogRetentionDuration, DeletedFileRetentionDuration, EnableExpiredLogCleanup, TruncateHistoryRetentionDuration,
    DataSkippingNumIndexedCols, DataSkippingStatsColumns, WriteStatsAsStruct, AppendOnly, IsolationLevelProperty,
    ColumnMappingModeProperty, ColumnMappingMaxColumnId, EnableChangeDataFeed, SymlinkManifest, EnableTypeWidening,
    EnableInCommitTimestamps, InCommitTimestampEnablementVersion, InCommitTimestampEnablementTimestamp,
    EnableRowTracking, RowTrackingSuspended, RequireCheckpointProtectionBeforeVersion, SetTransactionRetentionDuration,
    OptimizeWrite, AutoCompact, EnableIcebergCompatV1, EnableIcebergCompatV2, UniversalFormats)

  /** What a statement may set (besides the protocol's keys): the keys of [[all]] not kept by Silt. */
  val Honoured: Seq[String] = all.filterNot(_.keptBySilt).map(_.key)

  val ConstraintPrefix = "delta.constraints."

  /** The Delta table properties Silt does not implement, from `delta-table-properties.tsv`. */
  lazy val declared: Seq[DeltaKey] = DeltaKey.load("/io/silt/features/delta-table-properties.tsv")

  private def notImplemented(key: String): Option[DeltaKey] =
    declared.find(d => d.key.equalsIgnoreCase(key) && d.treatment == DeltaKeyTreatment.NotImplemented)

  /**
   * Refuses properties that change a retention so that the log would be kept for less time than
   * removed files (time travel would find commits whose files VACUUM may already have deleted), as
   * Delta Lake does; properties that leave both retentions as they were pass, whatever they are.
   */
  def checkRetentions(table: String, before: Map[String, String], after: Map[String, String]): Unit = {
    val (was, now) = (TableProperties(before), TableProperties(after))
    val keys = Seq(LogRetentionDuration.key, DeletedFileRetentionDuration.key)
    if (keys.exists(k => was.get(k) != now.get(k)) && now.logRetentionMs < now.deletedFileRetentionMs) {
      throw new InvalidTableOperationException(s"$table: ${LogRetentionDuration.key} (${now.get(LogRetentionDuration.key)
        .getOrElse(LogRetentionDuration.defaultText)}) must not be shorter than ${DeletedFileRetentionDuration.key} (${now
        .get(DeletedFileRetentionDuration.key).getOrElse(DeletedFileRetentionDuration.defaultText)}): time travel " +
        "would reach versions whose files VACUUM may have deleted. Lengthen the log retention or shorten the other.")
    }
  }

  /**
   * Refuses to set a `delta.*` property Silt does not implement to other than Delta Lake's default (a
   * reader of the table would trust it: UniForm, random file prefixes, …), or one Delta Lake does not have
   * (a misspelling), naming it.
   */
  def checkSettable(properties: Map[String, String]): Unit = properties.foreach { case (k, v) =>
    if (k.toLowerCase.startsWith("delta.") && !Honoured.exists(_.equalsIgnoreCase(k)) &&
        !ProtocolRequest.isProtocolKey(k)) {
      all.find(_.key.equalsIgnoreCase(k)).foreach { p =>
        throw new UnsupportedOptionException(k, s"table property $k (${p.doc}) cannot be set: Silt's own " +
          s"statements write it; Silt honours ${Honoured.mkString(", ")}")
      }
      declared.find(_.key.equalsIgnoreCase(k)) match {
        case Some(d) if d.treatment == DeltaKeyTreatment.NoEffect || !d.refuses(v) =>
        case Some(d) => throw new UnsupportedOptionException(k, s"table property $k = '$v' (${d.meaning}) is not " +
          s"implemented by Silt, so it cannot be set to other than Delta Lake's default" +
          d.deltaDefault.fold(" (unset)")(dv => s" ('$dv')") + s"; Silt honours ${Honoured.mkString(", ")} " +
          s"(and the protocol's ${ProtocolRequest.MinReaderKey}, ${ProtocolRequest.MinWriterKey}, " +
          s"${ProtocolRequest.FeaturePrefix}<name>)")
        case None => throw new UnsupportedOptionException(k, s"$k is not a Delta Lake table property (a " +
          s"misspelling?): the closest is ${DeltaKey.closest(k, Honoured ++ declared.map(_.key))}",
          ErrorClass.UnknownConfiguration)
      }
    }
  }

  /**
   * Refuses `statement` (of `kinds`) on a table whose `configuration` sets a property Silt does not
   * implement, that changes such statements, to other than Delta Lake's default, naming it (a table another
   * engine wrote: Silt would not do what the property asks).
   */
  def refuseAt(configuration: Map[String, String], kinds: Set[StatementKind], statement: String): Unit =
    configuration.foreach { case (k, v) =>
      notImplemented(k).filter(d => (d.kinds.contains(StatementKind.Any) || d.kinds.exists(kinds)) && d.refuses(v))
        .foreach { d =>
          throw new UnsupportedOptionException(k, s"the table's property $k = '$v' (${d.meaning}) would change " +
            s"$statement, and Silt does not implement it. Unset it (ALTER TABLE … UNSET TBLPROPERTIES ('$k')) or " +
            "use an engine that implements it.")
        }
    }
}

/**
 * Typed reads of a table's Delta properties (those Silt honours, declared in [[TableProperties]]), with
 * Delta Lake's defaults; a value that does not read names the property.
 */
final case class TableProperties(configuration: Map[String, String]) {
  import TableProperties._

  def get(key: String): Option[String] = TableProperty.lookup(configuration, key)

  /** Reads every property Silt honours, so that a value that does not read fails when it is set. */
  def validate(): Unit = {
    all.foreach(_.of(configuration))
    inCommitTimestampEnablement
    if (rowTracking && rowTrackingSuspended) {
      throw new InvalidTableOperationException(s"${EnableRowTracking.key} and ${RowTrackingSuspended.key} cannot both " +
        "be true: a table whose rows must all have ids cannot suspend giving them. Turn one off.")
    }
    if (EnableIcebergCompatV1.of(configuration) && EnableIcebergCompatV2.of(configuration)) {
      throw new InvalidTableOperationException(s"${EnableIcebergCompatV1.key} and ${EnableIcebergCompatV2.key} " +
        "cannot both be true: only one IcebergCompat version can be enabled. Turn one off.", null,
        ErrorClass.icebergCompatViolation("VERSION_MUTUAL_EXCLUSIVE"))
    }
    if (icebergEnabled && icebergCompatVersion.isEmpty) {
      throw new InvalidTableOperationException(s"the validation of Universal Format (iceberg) failed: " +
        s"${UniversalFormats.key} = 'iceberg' requires an IcebergCompat version: set ${EnableIcebergCompatV2.key} " +
        "= 'true' as well", null, ErrorClass.UniversalFormatViolation)
    }
    if (symlinkManifest && deletionVectorsEnabled) {
      throw new InvalidTableOperationException(s"${SymlinkManifest.key} and ${EnableDeletionVectors.key} cannot both " +
        "be true: symlink manifests cannot carry deletion vectors, so manifest readers would return deleted rows. " +
        "Turn one off.")
    }
  }

  def isolationLevel: IsolationLevel = IsolationLevelProperty.of(configuration)
  def deletionVectorsEnabled: Boolean = EnableDeletionVectors.of(configuration)
  /** Whether writes to the table optimize (see write.OptimizedWrite); None when the table does not say. */
  def optimizeWrite: Option[Boolean] = OptimizeWrite.of(configuration)
  /** Whether commits to the table compact small files after them (see optimize.AutoCompactHook); None: not said. */
  def autoCompact: Option[Boolean] = AutoCompact.of(configuration)
  def appendOnly: Boolean = AppendOnly.of(configuration)
  def typeWidening: Boolean = EnableTypeWidening.of(configuration)
  def rowTracking: Boolean = EnableRowTracking.of(configuration)
  def rowTrackingSuspended: Boolean = RowTrackingSuspended.of(configuration)
  def inCommitTimestamps: Boolean = EnableInCommitTimestamps.of(configuration)

  /** The version and in-commit timestamp of the commit that turned them on; None: on since version 0. */
  def inCommitTimestampEnablement: Option[(Long, Long)] = for {
    v <- InCommitTimestampEnablementVersion.of(configuration)
    t <- InCommitTimestampEnablementTimestamp.of(configuration)
  } yield (v, t)

  /** The version before which log cleanup deletes nothing (0: none). */
  def checkpointProtectedBefore: Long = RequireCheckpointProtectionBeforeVersion.of(configuration)
  def changeDataFeed: Boolean = EnableChangeDataFeed.of(configuration)
  def symlinkManifest: Boolean = SymlinkManifest.of(configuration)
  /** The icebergCompat version enabled (1 or 2); None: none. */
  def icebergCompatVersion: Option[Int] =
    Seq(1 -> EnableIcebergCompatV1, 2 -> EnableIcebergCompatV2).collectFirst { case (v, p) if p.of(configuration) => v }
  /** Whether each commit writes Iceberg metadata (UniForm). */
  def icebergEnabled: Boolean = UniversalFormats.of(configuration).contains(UniversalFormat.Iceberg)
  def expiredLogCleanup: Boolean = EnableExpiredLogCleanup.of(configuration)
  def writeStatsAsStruct: Boolean = WriteStatsAsStruct.of(configuration)
  def checkpointInterval: Int = CheckpointInterval.of(configuration)
  def checkpointPolicy: CheckpointPolicy = CheckpointPolicyProperty.of(configuration)
  def columnMappingMode: ColumnMappingMode = ColumnMappingModeProperty.of(configuration)
  /** Leading leaf columns with statistics; -1: all of them. */
  def dataSkippingNumIndexedCols: Int = DataSkippingNumIndexedCols.of(configuration)
  /** The columns with statistics, when named instead of counted. */
  def dataSkippingStatsColumns: Option[Seq[String]] = DataSkippingStatsColumns.of(configuration)

  /** The CHECK constraints, by lower-case name. */
  def checkConstraints: Map[String, String] = configuration.collect {
    case (k, v) if k.toLowerCase.startsWith(ConstraintPrefix) => k.substring(ConstraintPrefix.length).toLowerCase -> v
  }

  def logRetentionMs: Long = LogRetentionDuration.of(configuration)
  def deletedFileRetentionMs: Long = DeletedFileRetentionDuration.of(configuration)
  def truncateHistoryRetentionMs: Long = TruncateHistoryRetentionDuration.of(configuration)
  /** How long an application's idempotent-write version counts; None: always. */
  def setTransactionRetentionMs: Option[Long] = SetTransactionRetentionDuration.of(configuration)
}

/** The formats whose metadata a Delta table may keep beside its log (`delta.universalFormat.enabledFormats`). */
object UniversalFormat {
  val Iceberg = "iceberg"
  /** Delta Lake's other format, whose metadata Silt does not write: refused by name where it is asked for. */
  val Hudi = "hudi"
}
