package io.silt.dml

import io.silt.errors.UnsupportedOptionException
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
    // Refused until it is built: ignored, it would drop the source's new columns without a word.
    case MergeIntoTable(DmlTarget(t), _, _, _, _, _, true) => throw new UnsupportedOptionException("WITH SCHEMA EVOLUTION",
      s"MERGE WITH SCHEMA EVOLUTION into ${t.snapshot.tablePath} is not supported by Silt yet: add the source's new " +
        "columns first (ALTER TABLE … ADD COLUMNS), then MERGE without it")
    case m @ MergeIntoTable(t @ DmlTarget(_), source, cond, matched, notMatched, notMatchedBySource, false) if m.resolved =>
      MergeCommand(t, source, cond, matched, notMatched, notMatchedBySource)
  }
}
