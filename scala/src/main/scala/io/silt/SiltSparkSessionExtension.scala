package io.silt

import io.silt.catalog.ResolveSiltRelations
import io.silt.sql.SiltSqlParser
import org.apache.spark.sql.SparkSessionExtensions

/**
 * Wires Silt into a SparkSession: the SQL parser for Silt statements and the rule that plans
 * reads of Silt tables as file scans. Enable with
 * `spark.sql.extensions=io.silt.SiltSparkSessionExtension`.
 */
class SiltSparkSessionExtension extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit = {
    ext.injectParser((_, delegate) => new SiltSqlParser(delegate))
    ext.injectResolutionRule(spark => new ResolveSiltRelations(spark))
  }
}
