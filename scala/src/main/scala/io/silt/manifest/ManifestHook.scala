package io.silt.manifest

import scala.util.control.NonFatal

import io.silt.actions.{AddFile, Metadata, RemoveFile}
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.PostCommitHook
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * With `delta.compatibility.symlinkFormatManifest.enabled`, keeps the symlink manifests up to date
 * after every commit: the partitions the commit added or removed files in are rewritten, and all of
 * them when the commit changed the metadata (the property was just set, or the table was replaced).
 * The commit stands if this fails; the warning says to run GENERATE, which rewrites them all.
 */
final class ManifestHook extends PostCommitHook with Logging {
  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val snapshot = committed
    if (!TableProperties(snapshot.metadata.configuration).symlinkManifest) return
    try {
      val actions = log.readCommit(snapshot.version)
      if (actions.exists(_.isInstanceOf[Metadata])) SymlinkManifest.generateAll(log, snapshot)
      else {
        val touched = actions.collect {
          case a: AddFile => a.partitionValues
          case r: RemoveFile => r.partitionValues
        }.toSet
        if (touched.nonEmpty) SymlinkManifest.update(log, snapshot, touched)
      }
    } catch {
      case NonFatal(e) =>
        logWarning(s"Silt: version ${snapshot.version} of ${log.tablePath} is committed, but its symlink manifests " +
          s"could not be updated, so manifest readers see an older state: $e. Run GENERATE symlink_format_manifest FOR " +
          s"TABLE to write them again.")
    }
  }
}
