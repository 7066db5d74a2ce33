package io.silt.catalog

import io.silt.errors.InvalidTableOperationException
import io.silt.write.{TableWriter, WriteOptions}
import org.apache.spark.sql.{Row, SaveMode, SparkSession}
import io.silt.shims.DynamicOverwrite
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.silt.SparkInternals

/**
 * INSERT OVERWRITE in dynamic partition mode on a Silt table. Spark plans it only for tables with
 * a V2 batch writer, so once Spark has lined the query up with the table's columns it becomes
 * this command, which replaces the partitions the query writes in one commit.
 */
final case class DynamicOverwriteCommand(table: SiltTableV2, query: LogicalPlan, options: Map[String, String],
    withSchemaEvolution: Boolean) extends LeafRunnableCommand {
  override def innerChildren: Seq[LogicalPlan] = Seq(query)

  override def run(spark: SparkSession): Seq[Row] = {
    val parsed = WriteOptions.fromOptions(spark, SaveMode.Overwrite, options, None)
    if (parsed.replaceWhere.isDefined) throw new InvalidTableOperationException("option replaceWhere cannot be used " +
      "with a dynamic partition overwrite: each says which data to overwrite")
    val opts = parsed.copy(dynamicPartitionOverwrite = true, mergeSchema = parsed.mergeSchema || withSchemaEvolution)
    TableWriter.write(spark, table.path, SparkInternals.dataFrame(spark, query), opts)
    Nil
  }
}

/** Turns a resolved dynamic INSERT OVERWRITE of a Silt table into [[DynamicOverwriteCommand]]. */
object ResolveDynamicOverwrite extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case o @ DynamicOverwrite(r: DataSourceV2Relation, query, options, evolve)
        if r.table.isInstanceOf[SiltTableV2] && o.resolved && o.outputResolved =>
      DynamicOverwriteCommand(r.table.asInstanceOf[SiltTableV2], query, options, evolve)
  }
}
