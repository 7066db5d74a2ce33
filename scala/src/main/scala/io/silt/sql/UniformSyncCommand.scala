package io.silt.sql

import io.silt.errors.InvalidTableOperationException
import io.silt.features.TableProperties
import io.silt.log.TableLog
import io.silt.uniform.IcebergConversions
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * MSCK REPAIR TABLE table SYNC METADATA (Delta Lake's name for it): writes the Iceberg metadata of the table's
 * current version now, catching up on every version since the one it holds (after a failed conversion).
 */
final case class UniformSyncCommand(table: TableRef) extends LeafRunnableCommand {
  override def run(spark: SparkSession): Seq[Row] = {
    val log = TableLog.forPath(spark, table.path(spark).toString)
    val snapshot = log.latest()
    if (!TableProperties(snapshot.metadata.configuration).icebergEnabled) {
      throw new InvalidTableOperationException(s"table ${log.tablePath}: MSCK REPAIR TABLE … SYNC METADATA writes " +
        s"Iceberg metadata, and the table does not keep it: set ${TableProperties.UniversalFormats.key} = 'iceberg' " +
        "(with delta.enableIcebergCompatV2 = 'true') first")
    }
    // Beside a conversion in the background, if one runs: of the two, the one that writes second builds on the other's.
    IcebergConversions.convertWinningRaces(IcebergConversions.Job(spark, log, snapshot))
    Nil
  }
}
