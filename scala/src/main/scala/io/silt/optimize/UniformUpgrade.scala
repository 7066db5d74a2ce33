package io.silt.optimize

import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import io.silt.features.{ColumnMappingMode, TableProperties, UniversalFormat}
import io.silt.log.TableLog
import io.silt.txn.OptimizeMode
import io.silt.write.TableWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/**
 * REORG TABLE … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = n)), in Delta Lake's three commits (four from the
 * other version, turned off first): the
 * properties icebergCompat version n needs (the version on, the other off, deletion vectors off, column mapping
 * by name where the table has none), then the files not written under it (or with deletion vectors) rewritten
 * under it, then UniForm on (`delta.universalFormat.enabledFormats = iceberg`), whose first conversion follows.
 */
object UniformUpgrade {
  def run(spark: SparkSession, tablePath: Path, version: Int): OptimizeMetrics = {
    if (version != 1 && version != 2) {
      throw new InvalidTableOperationException(s"ICEBERG_COMPAT_VERSION = $version is not supported: Silt writes " +
        "IcebergCompat versions 1 and 2", null, ErrorClass.icebergCompatViolation("COMPAT_VERSION_NOT_SUPPORTED"))
    }
    val props = TableProperties(TableLog.forPath(spark, tablePath.toString).latest().metadata.configuration)
    val other = if (version == 1) TableProperties.EnableIcebergCompatV2 else TableProperties.EnableIcebergCompatV1
    val set = Map(
      (if (version == 1) TableProperties.EnableIcebergCompatV1 else TableProperties.EnableIcebergCompatV2).key -> "true",
      TableProperties.EnableDeletionVectors.key -> "false") ++
      (if (props.columnMappingMode == ColumnMappingMode.None)
        Map(TableProperties.ColumnMappingModeProperty.key -> ColumnMappingMode.Name.name) else Map.empty)
    // From the other version: off first, so that no commit holds the new version over files of the old one
    if (other.of(props.configuration)) TableWriter.alterProperties(spark, tablePath, Map.empty, Seq(other.key))
    TableWriter.alterProperties(spark, tablePath, set, Nil, statement = "REORG TABLE UPGRADE UNIFORM")
    val metrics = OptimizeExecutor.run(spark, tablePath, None, OptimizeMode.UpgradeUniform(version))
    TableWriter.alterProperties(spark, tablePath, Map(TableProperties.UniversalFormats.key -> UniversalFormat.Iceberg), Nil)
    metrics
  }
}
