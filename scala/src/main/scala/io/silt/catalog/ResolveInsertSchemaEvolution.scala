package io.silt.catalog

import io.silt.config.SiltSettings
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.{InsertIntoStatement, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.types.StructField

/**
 * `INSERT INTO t …` whose query has more columns than the Silt table `t`, with schema auto-merge on
 * (`spark.databricks.delta.schema.autoMerge.enabled`): the table the statement writes gets those columns, as
 * Delta Lake adds them (by position: the columns past the table's, under the names the query gives them,
 * `col3` for a VALUES list; BY NAME: those whose names the table lacks), and the write commits them with
 * its rows. Without auto-merge Spark refuses the statement, as before.
 */
final class ResolveInsertSchemaEvolution(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case i: InsertIntoStatement if i.userSpecifiedCols.isEmpty && i.partitionSpec.isEmpty && i.query.resolved &&
        SiltSettings.SchemaAutoMerge(spark) =>
      EliminateSubqueryAliases(i.table) match {
        case r: DataSourceV2Relation if r.table.isInstanceOf[SiltTableV2] =>
          val t = r.table.asInstanceOf[SiltTableV2]
          val names = t.schema().fieldNames.map(_.toLowerCase).toSet
          val added = if (i.byName) i.query.output.filterNot(a => names(a.name.toLowerCase))
            else i.query.output.drop(t.schema().length)
          if (added.isEmpty) i else {
            val fields = added.map(a => StructField(a.name, a.dataType, nullable = true))
            val widened = t.copy(newColumns = t.newColumns ++ fields)
            i.copy(table = r.copy(table = widened, output = r.output ++
              fields.map(f => AttributeReference(f.name, f.dataType, nullable = true)())))
          }
        case _ => i
      }
  }
}
