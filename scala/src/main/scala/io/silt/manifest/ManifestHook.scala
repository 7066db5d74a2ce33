package io.silt.manifest

import io.silt.actions.{AddFile, Metadata, RemoveFile}
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.PostCommitHook
import org.apache.spark.sql.SparkSession

/**
 * With `delta.compatibility.symlinkFormatManifest.enabled`, keeps the symlink manifests up to date
 * after every commit: the partitions the commit added or removed files in are rewritten, and all of
 * them when the commit changed the metadata (the property was just set, or the table was replaced).
 * If this fails, the commit stands and the statement fails, as Delta Lake's does (manifest readers would
 * otherwise see an older state without anyone knowing), saying to run GENERATE, which rewrites them all.
 */
final class ManifestHook extends PostCommitHook {
  override val name: String = "Generate Symlink Format Manifest"

  override def failureFailsStatement(spark: SparkSession): Boolean = true

  override def remedy(tablePath: String): String = "its symlink manifests still list an older version: run " +
    s"GENERATE symlink_format_manifest FOR TABLE delta.`$tablePath` to write them again"

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val snapshot = committed
    if (!TableProperties(snapshot.metadata.configuration).symlinkManifest) return
    val actions = log.readCommit(snapshot.version)
    if (actions.exists(_.isInstanceOf[Metadata])) SymlinkManifest.generateAll(log, snapshot)
    else {
      val touched = actions.collect {
        case a: AddFile => a.partitionValues
        case r: RemoveFile => r.partitionValues
      }.toSet
      if (touched.nonEmpty) SymlinkManifest.update(log, snapshot, touched)
    }
  }
}
