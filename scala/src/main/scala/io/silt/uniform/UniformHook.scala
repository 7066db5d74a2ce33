package io.silt.uniform

import scala.util.control.NonFatal

import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.PostCommitHook
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * With `delta.universalFormat.enabledFormats = iceberg`, writes the Iceberg metadata of each committed version
 * after it. A conversion that fails leaves the Delta commit as it is and the statement succeeding, as Delta
 * Lake's does: Iceberg readers see the previous version until a later commit (or REPAIR) converts, and it
 * catches up on every version since the one the metadata holds.
 */
final class UniformHook extends PostCommitHook with Logging {
  override val name: String = "Convert to Iceberg"

  override def remedy(tablePath: String): String = "Iceberg readers see an older version until the next commit " +
    s"converts it, or run MSCK REPAIR TABLE delta.`$tablePath` SYNC METADATA"

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val snapshot = committed
    if (TableProperties(snapshot.metadata.configuration).icebergEnabled) {
      try convertWinningRaces(log, snapshot, spark.sessionState.conf.sessionLocalTimeZone)
      catch {
        case NonFatal(e) => logWarning(s"Silt: version ${snapshot.version} of ${log.tablePath} is committed, but " +
          s"its Iceberg metadata could not be written: $e. ${remedy(log.tablePath.toString)}", e)
      }
    }
  }

  /**
   * Converts `snapshot`; when a concurrent conversion wrote the next metadata version first with an older Delta
   * version than this one, converts again on top of it (a few times), so that the newest commit is not left
   * for the next one to convert.
   */
  private def convertWinningRaces(log: TableLog, snapshot: Snapshot, timeZone: String): Unit = {
    var attempts = 0
    while (IcebergConverter.convert(log, snapshot, timeZone).isEmpty && attempts < UniformHook.RaceAttempts &&
        IcebergMetadataFiles.latest(log).flatMap(_._2.properties.get(IcebergTableMetadata.DeltaVersionKey))
          .forall(_.toLong < snapshot.version)) attempts += 1
  }
}

object UniformHook {
  /** Conversions of one commit after the first lost a race. */
  val RaceAttempts = 3
}
