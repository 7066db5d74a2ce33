package io.silt.dml

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{DeleteFromTable, LogicalPlan, MergeIntoTable, UpdateTable}
import org.apache.spark.sql.catalyst.rules.Rule

/** Plans DELETE, UPDATE and MERGE on Silt tables as Silt's commands once Spark has resolved them. */
object ResolveDml extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case d @ DeleteFromTable(t @ DmlTarget(_), cond) if d.resolved =>
      DeleteCommand(t, if (cond == Literal.TrueLiteral) None else Some(cond))
    case u @ UpdateTable(t @ DmlTarget(_), assignments, cond) if u.resolved =>
      UpdateCommand(t, assignments, cond)
    // WITH SCHEMA EVOLUTION: the target was widened when it was resolved (MergeSchemaEvolution).
    case m @ MergeIntoTable(t @ DmlTarget(_), source, cond, matched, notMatched, notMatchedBySource, _) if m.resolved =>
      MergeCommand(t, source, cond, matched, notMatched, notMatchedBySource)
  }
}
