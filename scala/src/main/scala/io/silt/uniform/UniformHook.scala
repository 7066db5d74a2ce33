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
      try IcebergConverter.convert(log, snapshot, spark.sessionState.conf.sessionLocalTimeZone)
      catch {
        case NonFatal(e) => logWarning(s"Silt: version ${snapshot.version} of ${log.tablePath} is committed, but " +
          s"its Iceberg metadata could not be written: $e. ${remedy(log.tablePath.toString)}", e)
      }
    }
  }
}
