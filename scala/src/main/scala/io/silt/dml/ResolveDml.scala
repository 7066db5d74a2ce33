package io.silt.dml

import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, DeleteFromTable, InsertAction, LogicalPlan, MergeAction,
  MergeIntoTable, UpdateAction, UpdateTable}
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Plans DELETE, UPDATE and MERGE on Silt tables as Silt's commands once Spark has resolved them,
 * with assignments to struct fields made assignments of their columns ([[NestedAssignments]]),
 * assigned structs matched to the columns by name ([[RowChanges.byName]]) and generated columns
 * recomputed ([[GeneratedAssignments]]).
 */
object ResolveDml extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case d @ DeleteFromTable(t @ DmlTarget(_), cond) if d.resolved =>
      DeleteCommand(t, if (cond == Literal.TrueLiteral) None else Some(cond))
    // Spark's cast of a struct whose fields are in another order does not resolve when their types
    // differ by position: the plan resolves once the struct is matched by name.
    case u @ UpdateTable(t @ DmlTarget(_), assignments, cond) if u.table.resolved =>
      val completed = generated(NestedAssignments.expand(assignments, t.output), t, insert = false)
      val named = u.copy(assignments = RowChanges.byName(completed, conf.sessionLocalTimeZone))
      if (completed ne assignments) named // the generated columns' values resolve first
      else if (named.resolved) UpdateCommand(t, named.assignments, cond) else u
    // WITH SCHEMA EVOLUTION: the target was widened when it was resolved (MergeSchemaEvolution).
    case m: MergeIntoTable if DmlTarget.unapply(m.targetTable).isDefined && m.targetTable.resolved && m.sourceTable.resolved =>
      val t = m.targetTable
      var completed = false
      def complete(assigned: Seq[Assignment], insert: Boolean) = {
        val as = if (insert) assigned else NestedAssignments.expand(assigned, t.output)
        val c = if (as.forall(_.resolved)) generated(as, t, insert) else as
        if (c ne as) completed = true
        RowChanges.byName(c, conf.sessionLocalTimeZone)
      }
      def byName(actions: Seq[MergeAction]) = actions.map {
        case u: UpdateAction => u.copy(assignments = complete(u.assignments, insert = false))
        case i: InsertAction => i.copy(assignments = complete(i.assignments, insert = true))
        case other => other
      }
      val named = m.copy(matchedActions = byName(m.matchedActions), notMatchedActions = byName(m.notMatchedActions),
        notMatchedBySourceActions = byName(m.notMatchedBySourceActions))
      if (completed) named
      else if (named.resolved) MergeCommand(t, named.sourceTable, named.mergeCondition, named.matchedActions,
        named.notMatchedActions, named.notMatchedBySourceActions) else m
  }

  private def generated(assignments: Seq[Assignment], t: LogicalPlan, insert: Boolean): Seq[Assignment] = t match {
    case DmlTarget(target) => GeneratedAssignments.complete(assignments, t.output, target.snapshot.metadata.schema,
      SparkSession.active.sessionState.sqlParser.parseExpression, insert)
    case _ => assignments
  }
}
