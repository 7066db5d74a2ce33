package io.silt.sql

import io.silt.optimize.{OptimizeExecutor, OptimizeMetrics}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand

/** OPTIMIZE table [WHERE partition predicate] [ZORDER BY (cols)]: returns (path, metrics). */
final case class OptimizeCommand(table: TableRef, partitionPredicate: Option[String], zOrderBy: Seq[String])
    extends LeafRunnableCommand {

  override val output: Seq[Attribute] = OptimizeMetrics.outputSchema.map(f =>
    AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val path = table.path(spark)
    val metrics = OptimizeExecutor.run(spark, path, partitionPredicate, zOrderBy)
    Seq(Row(path.toString, metrics.toRow))
  }
}
