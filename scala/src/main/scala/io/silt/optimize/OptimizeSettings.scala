package io.silt.optimize

import io.silt.config.SiltSettings
import io.silt.expressions.Curve
import org.apache.spark.sql.SparkSession

/** The `spark.silt.optimize.*` session settings, read once per command. */
final case class OptimizeSettings(
    minFileSize: Long,
    maxFileSize: Long,
    maxThreads: Int,
    numRanges: Int,
    addNoise: Boolean,
    maxDeletedRowsRatio: Double,
    zOrderCurve: Curve = Curve.ZOrder)

object OptimizeSettings {
  def from(spark: SparkSession): OptimizeSettings = {
    val max = SiltSettings.OptimizeMaxFileSize(spark)
    OptimizeSettings(
      minFileSize = SiltSettings.OptimizeMinFileSize.option(spark).getOrElse(max),
      maxFileSize = max,
      maxThreads = SiltSettings.OptimizeMaxThreads(spark),
      numRanges = SiltSettings.ZOrderNumRanges(spark),
      addNoise = SiltSettings.ZOrderAddNoise(spark),
      maxDeletedRowsRatio = SiltSettings.OptimizeMaxDeletedRowsRatio(spark),
      zOrderCurve = Curve.all.find(_.name == SiltSettings.ZOrderCurve(spark)).get)
  }
}
