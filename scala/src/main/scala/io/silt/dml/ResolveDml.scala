package io.silt.dml

import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, SubqueryExpression}
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
      refuseSubquery("DELETE", Some(cond))
      DeleteCommand(t, if (cond == Literal.TrueLiteral) None else Some(cond))
    // Spark's cast of a struct whose fields are in another order does not resolve when their types
    // differ by position: the plan resolves once the struct is matched by name.
    case u @ UpdateTable(t @ DmlTarget(_), assignments, cond) if u.table.resolved =>
      refuseSubquery("UPDATE", cond)
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

  /** Delta Lake refuses a subquery in a DELETE's or UPDATE's condition (DELTA_UNSUPPORTED_SUBQUERY): so does Silt,
   * by Delta's class, rather than by Spark's error about where a subquery may stand. */
  private def refuseSubquery(operation: String, cond: Option[Expression]): Unit = cond.filter(SubqueryExpression.hasSubquery)
    .foreach { c =>
      throw new InvalidTableOperationException(s"Subqueries are not supported in the $operation (condition = ${c.sql}). " +
        "Delta Lake refuses them too: name the rows by a MERGE instead, MERGE INTO <table> t USING (<subquery>) s " +
        s"ON <t's column> = <s's column> WHEN MATCHED THEN ${if (operation == "DELETE") "DELETE" else "UPDATE SET …"}",
        errorClass = ErrorClass.UnsupportedSubquery)
    }

  private def generated(assignments: Seq[Assignment], t: LogicalPlan, insert: Boolean): Seq[Assignment] = t match {
    case DmlTarget(target) => GeneratedAssignments.complete(assignments, t.output, target.snapshot.metadata.schema,
      SparkSession.active.sessionState.sqlParser.parseExpression, insert)
    case _ => assignments
  }
}
