package io.silt.sql

import io.silt.checkpoint.Checkpoints
import io.silt.errors.{InvalidTableOperationException, NotADeltaTableException}
import io.silt.features.{ColumnMapping, DropCleanup, FeatureDrops, TableFeatures, TableProperties, TableShape}
import io.silt.log.TableLog
import io.silt.optimize.{ColumnMappingRemoval, OptimizeExecutor, WidenedFiles}
import io.silt.txn.{Operation, OptimisticTransaction, OptimizeMode}
import io.silt.write.TableWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/** ALTER TABLE t DROP FEATURE name [TRUNCATE HISTORY]. */
final case class DropFeatureCommand(table: TableRef, feature: String, truncateHistory: Boolean) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    DropFeature.run(spark, table.path(spark), feature, truncateHistory)
    Nil
  }
}

/**
 * DROP FEATURE as Delta Lake 4.x does it without truncating history: the feature's properties
 * turned off (a commit), its traces in the files cleaned up (deletion vectors purged, or the files
 * written before a type change rewritten: a REORG commit), then one commit with the least protocol
 * without it and its traces in the metadata removed, which every live file is read for (a
 * concurrent write conflicts). A feature readers had to understand leaves
 * `checkpointProtection` and `delta.requireCheckpointProtectionBeforeVersion` = that commit's
 * version, and a checkpoint there, which readers of the downgraded table start from. Each step
 * is a commit of its own, so one that fails leaves the table readable with the feature still on.
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
    if (truncateHistory) refuse("Silt does not truncate history: drop the feature without TRUNCATE HISTORY, which keeps " +
      "the history and leaves the checkpointProtection feature, as Delta Lake does")
    val blockers = drop.blockers(before.metadata)
    if (blockers.nonEmpty) refuse(s"the table still uses it: ${blockers.mkString(", ")}; remove those first")

    val props = TableProperties(before.metadata.configuration)
    val set = drop.disable.collect { case (k, Some(v)) if !props.get(k).contains(v) => k -> v }.toMap
    val unset = drop.disable.collect { case (k, None) if props.get(k).isDefined => k }
    if (set.nonEmpty || unset.nonEmpty) TableWriter.alterProperties(spark, path, set, unset)
    drop.cleanup match {
      case DropCleanup.PurgeDeletionVectors => OptimizeExecutor.run(spark, path, None, OptimizeMode.Purge)
      case DropCleanup.RewriteWidenedFiles => OptimizeExecutor.run(spark, path, None, OptimizeMode.RewriteTypeWidening)
      case DropCleanup.RemoveColumnMapping => if (ColumnMapping.of(before.metadata).enabled) ColumnMappingRemoval.run(spark, path)
      case DropCleanup.None =>
    }

    val txn = OptimisticTransaction.start(spark, log)
    val current = txn.readSnapshot.get
    // Files written concurrently since the cleanup (a RESTORE can bring old ones back) are checked again.
    val uncleaned = drop.cleanup match {
      case DropCleanup.PurgeDeletionVectors => current.files.exists(_.deletionVector.isDefined)
      case DropCleanup.RewriteWidenedFiles => WidenedFiles.select(spark, current, current.files).nonEmpty
      case DropCleanup.RemoveColumnMapping => ColumnMapping.of(current.metadata).enabled
      case DropCleanup.None => false
    }
    if (uncleaned) refuse(s"files that need the feature remain after the step '${drop.cleanup.description}' " +
      "(written concurrently); run the statement again")
    if (feature.neededBy(TableShape.of(current.metadata))) refuse("the table's properties or schema still need it")
    txn.filesToValidate()
    val stripped = drop.strip(current.metadata)
    val protection = if (!feature.isReaderWriter) Map.empty[String, String]
      else Map(TableProperties.RequireCheckpointProtectionBeforeVersion -> (txn.readVersion + 1).toString)
    if (stripped != current.metadata || protection.nonEmpty) {
      txn.updateMetadata(stripped.copy(configuration = stripped.configuration ++ protection))
    }
    txn.updateProtocol(FeatureDrops.protocolWithout(current.protocol, feature))
    val version = txn.commit(Nil, Operation.DropFeature(feature.name, truncateHistory = false))
    if (feature.isReaderWriter) Checkpoints.checkpoint(spark, log, log.snapshotAt(version))
    version
  }
}
