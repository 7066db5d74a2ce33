package io.silt.uniform

import io.silt.config.SiltSettings
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.PostCommitHook
import org.apache.spark.sql.SparkSession

/**
 * With `delta.universalFormat.enabledFormats = iceberg`, writes the Iceberg metadata of each committed version
 * after it: in the background by default, as Delta Lake does (`uniform.iceberg.sync.convert.enabled` converts
 * before the statement returns). A conversion that fails leaves the Delta commit as it is and the statement
 * succeeding, as Delta Lake's does: Iceberg readers see the previous version until a later commit (or REPAIR)
 * converts, and it catches up on every version since the one the metadata holds.
 */
final class UniformHook extends PostCommitHook {
  override val name: String = "Convert to Iceberg"

  override def remedy(tablePath: String): String = UniformHook.remedy(tablePath)

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val snapshot = committed
    if (TableProperties(snapshot.metadata.configuration).icebergEnabled) {
      val job = IcebergConversions.Job(spark, log, snapshot)
      if (SiltSettings.UniformSyncConversion(spark)) IcebergConversions.convertNow(job)
      else IcebergConversions.submit(job)
    } else IcebergCatalogEntries.update(spark, log, enabled = false)
  }
}

object UniformHook {
  /** What brings the Iceberg metadata of the table at `tablePath` up to date after a failed conversion. */
  def remedy(tablePath: String): String = "Iceberg readers see an older version until the next commit converts " +
    s"it, or run MSCK REPAIR TABLE delta.`$tablePath` SYNC METADATA"

  def remedyFor(log: TableLog): String = remedy(log.tablePath.toString)
}
