package io.silt.sql

import io.silt.errors.{NotADeltaTableException, UnsupportedOptionException}
import io.silt.features.TableFeatures
import io.silt.log.TableLog
import io.silt.manifest.SymlinkManifest
import io.silt.spark.JobDescription
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/** GENERATE symlink_format_manifest FOR TABLE t: writes the manifests of the table's latest version. */
final case class GenerateCommand(mode: String, table: TableRef) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    if (!mode.equalsIgnoreCase(SymlinkManifest.Mode)) {
      throw new UnsupportedOptionException(mode, s"GENERATE $mode is not a manifest Silt writes: the one mode is " +
        s"${SymlinkManifest.Mode}")
    }
    val path = table.path(spark)
    val log = TableLog.forPath(spark, path.toString)
    val snapshot = log.latestOption().getOrElse(throw new NotADeltaTableException(path.toString))
    TableFeatures.checkReadable(path.toString, snapshot.protocol, snapshot.metadata)
    JobDescription(spark, s"GENERATE ${SymlinkManifest.Mode} FOR ${path.getName}") {
      val result = SymlinkManifest.generateAll(log, snapshot)
      // Delta Lake records no commit for GENERATE; Silt records one with only commitInfo, so that
      // DESCRIBE HISTORY shows when the manifests were written and of which version.
      OptimisticTransaction.start(spark, log).commit(Nil, Operation.Generate(SymlinkManifest.Mode, snapshot.version, Map(
        "numManifestsWritten" -> result.manifestsWritten.toLong, "numManifestsDeleted" -> result.manifestsDeleted.toLong,
        "numFilesListed" -> result.filesListed)))
    }
    Nil
  }
}
