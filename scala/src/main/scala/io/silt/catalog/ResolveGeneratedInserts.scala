package io.silt.catalog

import io.silt.write.GeneratedColumns
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast}
import org.apache.spark.sql.catalyst.plans.logical.{InsertIntoStatement, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * `INSERT INTO t (columns) …` into a Silt table, leaving out generated columns: they join the
 * column list, computed from the given columns, before Spark fills what is still missing with
 * defaults (it would give them NULL, which their check then refuses).
 */
final class ResolveGeneratedInserts(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case i: InsertIntoStatement if i.userSpecifiedCols.nonEmpty && i.query.resolved &&
        i.query.output.size == i.userSpecifiedCols.size =>
      EliminateSubqueryAliases(i.table) match {
        case r: DataSourceV2Relation if r.table.isInstanceOf[SiltTableV2] =>
          val given = i.userSpecifiedCols.map(_.toLowerCase).toSet
          val missing = r.table.asInstanceOf[SiltTableV2].snapshot.metadata.schema.fields.toSeq
            .flatMap(f => GeneratedColumns.of(f).filter(_ => !given(f.name.toLowerCase)).map(f -> _))
          if (missing.isEmpty) i else {
            // the query's columns under the table's names, so that the expressions can name them
            val named = Project(i.query.output.zip(i.userSpecifiedCols).map { case (a, n) => Alias(a, n)() }, i.query)
            val computed = missing.map { case (f, sql) =>
              Alias(Cast(spark.sessionState.sqlParser.parseExpression(sql), f.dataType), f.name)()
            }
            i.copy(userSpecifiedCols = i.userSpecifiedCols ++ missing.map(_._1.name), query = Project(named.output ++ computed, named))
          }
        case _ => i
      }
  }
}
