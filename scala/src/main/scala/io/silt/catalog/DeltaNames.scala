package io.silt.catalog

import io.silt.config.{DeltaLakeClasspath, SiltSettings}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Whether Silt answers to Delta Lake's names: `format("delta")`, `USING delta`, delta.`/path` and
 * catalog tables whose provider is `delta`. It does when delta-spark is not on the classpath (and
 * `spark.silt.deltaNames.enabled` is on), so that code written for Delta Lake runs unchanged; with
 * delta-spark present those names stay Delta Lake's and Silt keeps to `silt`. Either way it is
 * said once in the log.
 */
object DeltaNames extends Logging {
  val Name = "delta"
  private def deltaOnClasspath: Boolean = DeltaLakeClasspath.present

  @volatile private var said = false

  /** Whether Delta Lake's names are Silt's in this session (the active one when None). */
  def served(spark: Option[SparkSession] = None): Boolean = {
    val session = spark.orElse(SparkSession.getActiveSession)
    val enabled = session.forall(s => SiltSettings.DeltaNamesEnabled(s))
    val on = enabled && !deltaOnClasspath
    if (!said) {
      said = true
      if (deltaOnClasspath) logWarning("Silt: delta-spark is on the classpath, so format(\"delta\"), USING delta and " +
        "delta.`path` stay Delta Lake's; Silt's tables are format(\"silt\"), USING silt and silt.`path`")
      else if (on) logInfo("Silt: delta-spark is not on the classpath, so Silt serves format(\"delta\"), USING delta, " +
        s"delta.`path` and catalog tables of provider delta (${SiltSettings.DeltaNamesEnabled.key}=false turns it off)")
    }
    on
  }

  /** Whether a format or provider name is Silt's: `silt`, or `delta` when it is served. */
  def isSilt(name: String, spark: Option[SparkSession] = None): Boolean =
    name.equalsIgnoreCase("silt") || (name.equalsIgnoreCase(Name) && served(spark))
}

/** `format("delta")` served by Silt (see [[DeltaNames]]); with delta-spark present it names nothing Spark looks up. */
class DeltaNamesDataSource extends SiltDataSource {
  override def shortName(): String = if (DeltaNames.served()) DeltaNames.Name else "silt-delta-names-off"
}
