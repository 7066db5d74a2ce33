package io.silt.sql

import io.silt.log.TableLog
import io.silt.optimize.{OptimizeExecutor, OptimizeMetrics, UniformUpgrade}
import io.silt.txn.OptimizeMode
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/**
 * OPTIMIZE table [WHERE partition predicate] [ZORDER BY (cols)], and REORG TABLE table [WHERE …]
 * APPLY (PURGE) or APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = n)): returns (path, metrics).
 */
final case class OptimizeCommand(table: TableRef, partitionPredicate: Option[String], mode: OptimizeMode)
    extends LeafRunnableCommand {

  override val output: Seq[Attribute] = OptimizeMetrics.outputSchema.map(f =>
    AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val path = table.path(spark)
    val metrics = mode match {
      case OptimizeMode.UpgradeUniform(version) => UniformUpgrade.run(spark, path, version)
      case _ => OptimizeExecutor.run(spark, path, partitionPredicate, mode)
    }
    // The table's qualified path, as Delta Lake returns it.
    Seq(Row(TableLog.forPath(spark, path.toString).tablePath.toString, metrics.toRow))
  }
}
