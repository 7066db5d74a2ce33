package io.silt.sql

import io.silt.actions.AddFile
import io.silt.checkpoint.{Checkpoints, HistoryTruncation}
import io.silt.errors.{FeatureInHistoryException, InvalidTableOperationException, NotADeltaTableException}
import io.silt.features.{ColumnMapping, DropCleanup, FeatureDrop, FeatureDrops, TableFeature, TableFeatures, TableProperties, TableShape}
import io.silt.log.TableLog
import io.silt.optimize.{ColumnMappingRemoval, OptimizeExecutor, WidenedFiles}
import io.silt.txn.{Operation, OptimisticTransaction, OptimizeMode}
import io.silt.write.TableWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/**
 * DROP FEATURE as Delta Lake 4.x does it: the feature's properties turned off (a commit), its
 * traces in the files cleaned up (deletion vectors purged, or the files written before a type
 * change rewritten: a REORG commit), then one commit with the least protocol without it and its
 * traces in the metadata removed, which every live file is read for (a concurrent write
 * conflicts). Each step is a commit of its own, so one that fails leaves the table readable with
 * the feature still on.
 *
 * Without TRUNCATE HISTORY, a feature readers had to understand leaves `checkpointProtection` and
 * `delta.requireCheckpointProtectionBeforeVersion` = the drop's version, and a checkpoint there,
 * which readers of the downgraded table start from. With it (Delta's two-step drop), the history
 * is cut instead: the first run cleans up, checkpoints an empty commit and stops
 * ([[FeatureInHistoryException]]: wait for `delta.dropFeatureTruncateHistory.retentionDuration`);
 * a later run deletes the log older than that and lowers the protocol once no kept version uses
 * the feature. `checkpointProtection` itself is dropped only that way, once the log before its
 * protected version is gone.
 */
object DropFeature {
  def run(spark: SparkSession, path: Path, name: String, truncateHistory: Boolean): Long = {
    val log = TableLog.forPath(spark, path.toString)
    val before = log.latestOption().getOrElse(throw new NotADeltaTableException(path.toString))
    TableFeatures.checkWritable(path.toString, before.protocol, before.metadata)
    def refuse(why: String): Nothing = throw new InvalidTableOperationException(s"ALTER TABLE $path DROP FEATURE $name: $why")
    val feature = TableFeatures.named(name).getOrElse(refuse("Delta Lake has no table feature of that name"))
    if (!TableFeatures.declared(before.protocol).contains(feature)) {
      refuse(s"the table's protocol (reader ${before.protocol.minReaderVersion}, writer ${before.protocol.minWriterVersion}" +
        s"${before.protocol.writerFeatures.map(_.toSeq.sorted.mkString(", features ", ", ", "")).getOrElse("")}) does not have it")
    }
    val drop = feature.drop.getOrElse(refuse(feature.dropRefusal))
    if (drop.onlyWithTruncateHistory && !truncateHistory) refuse("Delta Lake drops it only with TRUNCATE HISTORY, which " +
      s"deletes the history before the protected version: ALTER TABLE … DROP FEATURE $name TRUNCATE HISTORY")
    if (truncateHistory && !feature.isReaderWriter && !drop.onlyWithTruncateHistory) refuse("readers of the history " +
      "do not need this feature, so there is no history to truncate: drop it without TRUNCATE HISTORY (as Delta Lake asks)")
    // The history is cut for a feature readers must understand; checkpointProtection's cleanup cuts its own.
    val cutsHistory = truncateHistory && feature.isReaderWriter
    val dependents = TableFeatures.declared(before.protocol).filter(_.requires.exists(_.equalsIgnoreCase(feature.name)))
    if (dependents.nonEmpty) refuse(s"the table's features ${dependents.map(_.name).mkString(", ")} need it: drop " +
      "those first")
    val blockers = drop.blockers(before.metadata)
    if (blockers.nonEmpty) refuse(s"the table still uses it: ${blockers.mkString(", ")}; remove those first")

    cleanUp(spark, log, path, feature, drop, before.metadata.configuration)
    if (cutsHistory) {
      // A commit since the start (the cleanup's, or a concurrent writer's) may use the feature: the
      // history must first pass the retention. The checkpoint gives a later run a point to cut at.
      val changed = log.latest().version != before.version
      HistoryTruncation.checkpointOnEmptyCommit(spark, log)
      if (changed) throw new FeatureInHistoryException(path.toString, feature.name, waiting = true, detail = s"DROP FEATURE ${feature.name} " +
        s"was partly done: the current version no longer uses it, but the table's history does. Run the statement " +
        s"again once the history is older than ${TableProperties.TruncateHistoryRetentionDuration.key} " +
        s"(${retentionText(log)}); it then deletes that history and lowers the protocol.")
    }

    val txn = OptimisticTransaction.start(spark, log)
    val current = txn.readSnapshot.get
    // Files written concurrently since the cleanup (a RESTORE can bring old ones back) are checked again.
    val uncleaned = drop.cleanup match {
      case DropCleanup.PurgeDeletionVectors => current.files.exists(_.deletionVector.isDefined)
      case DropCleanup.RewriteWidenedFiles => WidenedFiles.select(spark, current, current.files).nonEmpty
      case DropCleanup.RemoveColumnMapping => ColumnMapping.of(current.metadata).enabled
      case DropCleanup.UnbackfillRowIds => current.files.exists(hasRowIds)
      case DropCleanup.TruncateProtectedHistory | DropCleanup.None => false
    }
    if (uncleaned) refuse(s"files that need the feature remain after the step '${drop.cleanup.description}' " +
      "(written concurrently); run the statement again")
    if (feature.neededBy(TableShape.of(current.metadata))) refuse("the table's properties or schema still need it")
    val otherDomains = current.domains.values.filterNot(d => d.removed || drop.domains.contains(d.domain)).map(_.domain)
    if (drop.noDomainsLeft && otherDomains.nonEmpty) refuse(s"the table has domains (${otherDomains.toSeq.sorted
      .mkString(", ")}), which need it")
    txn.filesToValidate()
    if (cutsHistory) {
      HistoryTruncation.truncate(spark, log, current)
      if (HistoryTruncation.uses(log, txn.readVersion, drop.traces)) {
        throw new FeatureInHistoryException(path.toString, feature.name, s"cannot drop ${feature.name} yet: versions " +
          s"the log keeps use it. Run the statement again once they are older than " +
          s"${TableProperties.TruncateHistoryRetentionDuration.key} (${retentionText(log)}).")
      }
    }
    val stripped = drop.strip(current.metadata)
    val protection = if (!feature.isReaderWriter || cutsHistory) Map.empty[String, String]
      else Map(TableProperties.RequireCheckpointProtectionBeforeVersion.key -> (txn.readVersion + 1).toString)
    if (stripped != current.metadata || protection.nonEmpty) {
      txn.updateMetadata(stripped.copy(configuration = stripped.configuration ++ protection))
    }
    txn.updateProtocol(FeatureDrops.protocolWithout(current.protocol, feature, historyTruncated = cutsHistory))
    val removedDomains = drop.domains.flatMap(current.domains.get).filterNot(_.removed).map(_.copy(removed = true))
    val version = txn.commit(removedDomains, Operation.DropFeature(feature.name, truncateHistory))
    if (feature.isReaderWriter && !cutsHistory) Checkpoints.checkpoint(spark, log, log.snapshotAt(version))
    version
  }

  /** The feature's properties turned off and its traces cleaned up, each a commit of its own where needed. */
  private def cleanUp(spark: SparkSession, log: TableLog, path: Path, feature: TableFeature, drop: FeatureDrop,
      configuration: Map[String, String]): Unit = {
    val props = TableProperties(configuration)
    val set = drop.disable.collect { case (k, Some(v)) if !props.get(k).contains(v) => k -> v }.toMap
    val unset = drop.disable.collect { case (k, None) if props.get(k).isDefined => k }
    if (set.nonEmpty || unset.nonEmpty) TableWriter.alterProperties(spark, path, set, unset)
    drop.cleanup match {
      case DropCleanup.PurgeDeletionVectors => OptimizeExecutor.run(spark, path, None, OptimizeMode.Purge)
      case DropCleanup.RewriteWidenedFiles => OptimizeExecutor.run(spark, path, None, OptimizeMode.RewriteTypeWidening)
      case DropCleanup.RemoveColumnMapping => if (ColumnMapping.of(log.latest().metadata).enabled) ColumnMappingRemoval.run(spark, path)
      case DropCleanup.TruncateProtectedHistory => truncateProtectedHistory(spark, log, path, feature)
      case DropCleanup.UnbackfillRowIds => unbackfillRowIds(spark, log)
      case DropCleanup.None =>
    }
  }

  /** The log before the protected version deleted in one go (an empty commit checkpointed to cut at), or refused to wait. */
  private def truncateProtectedHistory(spark: SparkSession, log: TableLog, path: Path, feature: TableFeature): Unit = {
    val protectedBefore = TableProperties(log.latest().metadata.configuration).checkpointProtectedBefore
    if (protectedBefore > 0 && !HistoryTruncation.truncatedBefore(log, protectedBefore)) {
      HistoryTruncation.checkpointOnEmptyCommit(spark, log)
      HistoryTruncation.truncate(spark, log, log.latest())
      if (!HistoryTruncation.truncatedBefore(log, protectedBefore)) {
        throw new FeatureInHistoryException(path.toString, feature.name, s"cannot drop ${feature.name} yet: the log " +
          s"before the protected version $protectedBefore (${TableProperties.RequireCheckpointProtectionBeforeVersion.key}) " +
          s"is not yet older than ${TableProperties.TruncateHistoryRetentionDuration.key} (${retentionText(log)}). Run the " +
          "statement again once it is; it then deletes that history.")
      }
    }
  }

  private def hasRowIds(f: AddFile): Boolean = f.baseRowId.isDefined || f.defaultRowCommitVersion.isDefined

  /** Every file with row ids recommitted without them, the data unchanged (the ids were suspended first). */
  private def unbackfillRowIds(spark: SparkSession, log: TableLog): Unit = {
    val txn = OptimisticTransaction.start(spark, log)
    val files = txn.readSnapshot.get.files.filter(hasRowIds)
    if (files.nonEmpty) {
      txn.readFiles(files)
      txn.commit(files.map(_.copy(baseRowId = None, defaultRowCommitVersion = None, dataChange = false)),
        Operation.RowTrackingUnbackfill(batchId = 0))
    }
  }

  private def retentionText(log: TableLog): String = {
    val props = TableProperties(log.latest().metadata.configuration)
    props.get(TableProperties.TruncateHistoryRetentionDuration.key).getOrElse(TableProperties.TruncateHistoryRetentionDuration.defaultText)
  }
}
