package io.silt.dml

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.catalyst.plans.logical.{DeleteFromTable, InsertAction, LogicalPlan, MergeAction, MergeIntoTable,
  UpdateAction, UpdateTable}
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Plans DELETE, UPDATE and MERGE on Silt tables as Silt's commands once Spark has resolved them,
 * with assigned structs matched to the columns by name ([[RowChanges.byName]]).
 */
object ResolveDml extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case d @ DeleteFromTable(t @ DmlTarget(_), cond) if d.resolved =>
      DeleteCommand(t, if (cond == Literal.TrueLiteral) None else Some(cond))
    // Spark's cast of a struct whose fields are in another order does not resolve when their types
    // differ by position: the plan resolves once the struct is matched by name.
    case u @ UpdateTable(t @ DmlTarget(_), assignments, cond) if u.table.resolved =>
      val named = u.copy(assignments = RowChanges.byName(assignments, conf.sessionLocalTimeZone))
      if (named.resolved) UpdateCommand(t, named.assignments, cond) else u
    // WITH SCHEMA EVOLUTION: the target was widened when it was resolved (MergeSchemaEvolution).
    case m @ MergeIntoTable(t @ DmlTarget(_), _, _, _, _, _, _) if m.targetTable.resolved && m.sourceTable.resolved =>
      def byName(actions: Seq[MergeAction]) = actions.map {
        case u: UpdateAction => u.copy(assignments = RowChanges.byName(u.assignments, conf.sessionLocalTimeZone))
        case i: InsertAction => i.copy(assignments = RowChanges.byName(i.assignments, conf.sessionLocalTimeZone))
        case other => other
      }
      val named = m.copy(matchedActions = byName(m.matchedActions), notMatchedActions = byName(m.notMatchedActions),
        notMatchedBySourceActions = byName(m.notMatchedBySourceActions))
      if (named.resolved) MergeCommand(t, named.sourceTable, named.mergeCondition, named.matchedActions,
        named.notMatchedActions, named.notMatchedBySourceActions) else m
  }
}
