package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.AddFile
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, CaseWhen, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, Filter, LogicalPlan}
import org.apache.spark.sql.silt.SparkInternals

/**
 * UPDATE t SET col = value, … [WHERE condition]: the old versions of changed rows are marked in
 * deletion vectors (or their files rewritten) and the new versions written to new files.
 */
final case class UpdateCommand(target: LogicalPlan, assignments: Seq[Assignment], condition: Option[Expression])
    extends RowLevelCommand("UPDATE", Seq("num_affected_rows")) {

  override protected def execute(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row] = {
    val tz = spark.sessionState.conf.sessionLocalTimeZone
    val columns = t.relation.output
    val newValues = columns.map { c =>
      assignments.find(a => UpdateCommand.assignedAttribute(a).exprId == c.exprId)
        .map(a => RowChanges.castTo(a.value, c, tz)).getOrElse(c)
    }
    val candidates = t.candidateFiles(condition)
    txn.readFiles(candidates)
    txn.readRows(condition, Some(RowProbes.condition(spark, t, condition)))
    if (candidates.isEmpty) return Seq(Row(0L))
    val useDvs = DeletionVectors.enabled(t.snapshot)
    val preimage = if (t.changeDataFeed) ChangeRows.preimage(columns, columns) else Nil
    def changesOver(files: Seq[AddFile]) = {
      val TargetRows(scan, path, row, _) = RowChanges.targetWithRowIds(t.scanOf(spark, files))
      val changes = if (useDvs) {
        val input = condition.map(Filter(_, scan)).getOrElse(scan)
        RowChanges.project(newValues, columns, path, row, RowChanges.actionOf(Nil, RowChange.Update), input, preimage)
      } else {
        val cond = condition.getOrElse(Literal.TrueLiteral)
        val values = newValues.zip(columns).map { case (v, c) => if (v eq c) c else CaseWhen(Seq(cond -> v), c) }
        RowChanges.project(values, columns, path, row, RowChanges.actionOf(Seq(cond -> RowChange.Update), RowChange.Keep), scan,
          preimage)
      }
      SparkInternals.dataFrame(spark, changes)
    }
    val metrics = RowLevelWriter.commit(spark, txn, t.snapshot, candidates, changesOver,
      mayWriteRows = true, m => Operation.Update(condition.map(_.sql), m.updateMetrics), onlyMarkedRows = true)
    Seq(Row(metrics.updated))
  }
}

object UpdateCommand {
  /** The top-level column an assignment sets; nested fields are not supported. */
  def assignedAttribute(a: Assignment): Attribute = a.key match {
    case attr: Attribute => attr
    case other => throw new InvalidTableOperationException(s"cannot assign to ${other.sql}: only top-level columns can be set")
  }
}
