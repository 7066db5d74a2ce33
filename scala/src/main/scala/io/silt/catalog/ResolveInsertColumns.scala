package io.silt.catalog

import io.silt.expressions.IdentityPlaceholder
import io.silt.features.IdentityColumns
import io.silt.write.{ColumnDefaults, GeneratedColumns}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Alias, Cast, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{InsertIntoStatement, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * `INSERT INTO t (columns) …` into a Silt table: the columns it leaves out join the list, each
 * with its value as Delta gives it: an identity column's next values, a generated column's
 * expression over the given columns, else
 * the column's default, else NULL. Spark would give a generated column NULL (which its check then
 * refuses), and Spark 4.0 refuses a list that leaves any column out.
 */
final class ResolveInsertColumns(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperators {
    case i: InsertIntoStatement if i.userSpecifiedCols.nonEmpty && i.query.resolved &&
        i.query.output.size == i.userSpecifiedCols.size =>
      EliminateSubqueryAliases(i.table) match {
        case r: DataSourceV2Relation if r.table.isInstanceOf[SiltTableV2] =>
          val given = (i.userSpecifiedCols ++ i.partitionSpec.keys).map(_.toLowerCase).toSet
          val missing = r.table.asInstanceOf[SiltTableV2].snapshot.metadata.schema.fields.toSeq
            .filterNot(f => given(f.name.toLowerCase))
          if (missing.isEmpty) i else {
            val parse = spark.sessionState.sqlParser.parseExpression _
            // the query's columns under the table's names, so that generation expressions can name them
            val named = Project(i.query.output.zip(i.userSpecifiedCols).map { case (a, n) => Alias(a, n)() }, i.query)
            val filled = missing.map { f =>
              val value: Expression = if (IdentityColumns.specOf(f).isDefined) IdentityPlaceholder(f.name)
                else GeneratedColumns.of(f).orElse(ColumnDefaults.of(f)).map(parse).getOrElse(Literal(null))
              Alias(Cast(value, f.dataType), f.name)()
            }
            i.copy(userSpecifiedCols = i.userSpecifiedCols ++ missing.map(_.name), query = Project(named.output ++ filled, named))
          }
        case _ => i
      }
  }
}
