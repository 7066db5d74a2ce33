package io.silt

import io.silt.catalog.{ResolveDynamicOverwrite, ResolveInsertColumns, ResolveInsertSchemaEvolution, ResolveSiltRelations}
import io.silt.config.SiltVersion
import io.silt.dml.ResolveDml
import io.silt.expressions.SiltFunctions
import io.silt.optimizer.RangePartitionIdRewrite
import io.silt.sql.{ResolveShowPartitions, SessionSettings, SiltSqlParser, TableChanges}
import org.apache.spark.sql.SparkSessionExtensions

/**
 * Wires Silt into a SparkSession: the SQL parser for Silt statements, the rule that plans
 * reads of Silt tables as file scans, the range-id rewrite and the SQL functions. Enable with
 * `spark.sql.extensions=io.silt.SiltSparkSessionExtension`.
 */
class SiltSparkSessionExtension extends (SparkSessionExtensions => Unit) {
  override def apply(ext: SparkSessionExtensions): Unit = {
    // A jar of another Spark minor would fail later on a changed internal API, far from the cause.
    SiltVersion.checkRunningSpark(org.apache.spark.SPARK_VERSION)
    ext.injectParser((spark, delegate) => new SiltSqlParser(delegate, Some(spark)))
    ext.injectResolutionRule(spark => new ResolveSiltRelations(spark))
    ext.injectResolutionRule(spark => new ResolveInsertColumns(spark))
    ext.injectResolutionRule(spark => new ResolveInsertSchemaEvolution(spark))
    ext.injectResolutionRule(_ => ResolveDml)
    ext.injectResolutionRule(_ => ResolveDynamicOverwrite)
    ext.injectResolutionRule(_ => ResolveShowPartitions)
    ext.injectOptimizerRule(spark => new RangePartitionIdRewrite(spark))
    ext.injectFunction(SiltFunctions.interleaveBits)
    ext.injectFunction(SiltFunctions.rangePartitionId)
    ext.injectTableFunction(TableChanges.byName)
    ext.injectTableFunction(TableChanges.byPath)
    ext.injectTableFunction(SessionSettings.registration)
  }
}
