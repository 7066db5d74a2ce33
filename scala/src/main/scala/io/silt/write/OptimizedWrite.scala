package io.silt.write

import io.silt.actions.Metadata
import io.silt.config.SiltSettings
import io.silt.features.TableProperties
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.RebalancePartitions
import org.apache.spark.sql.silt.SparkInternals

/**
 * Optimized writes (Delta Lake's `optimizeWrite`): the rows of a write are shuffled before the
 * files are written, by the table's partition columns, so that each partition value is written
 * by few tasks, into files near the bin size, instead of one file per task per partition value.
 * The shuffle is Spark's rebalance: adaptive execution merges small shuffle partitions and splits
 * large ones to the bin size (without it, the session's shuffle partition count is used).
 */
object OptimizedWrite {

  /** Whether a write optimizes: its option, else the session's setting, else the table's property (Delta's order). */
  def enabled(spark: SparkSession, option: Option[Boolean], metadata: Metadata): Boolean =
    option.orElse(SiltSettings.OptimizeWriteEnabled.option(spark))
      .orElse(TableProperties(metadata.configuration).optimizeWrite).getOrElse(false)

  /** `data` shuffled for an optimized write into the table of `metadata`. */
  def shuffle(spark: SparkSession, data: DataFrame, metadata: Metadata): DataFrame = {
    val plan = data.queryExecution.analyzed
    val keys = metadata.partitionColumns.flatMap(c => plan.output.find(_.name.equalsIgnoreCase(c)))
    val binBytes = SiltSettings.OptimizeWriteBinSize(spark) * 1024L * 1024L
    SparkInternals.dataFrame(spark, RebalancePartitions(keys, plan, None, Some(binBytes)))
  }
}
