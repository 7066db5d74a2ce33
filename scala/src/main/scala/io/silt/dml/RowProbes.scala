package io.silt.dml

import io.silt.actions.AddFile
import io.silt.txn.ConflictChecker.unqualified
import io.silt.txn.RowProbe
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal, Or}
import org.apache.spark.sql.catalyst.plans.LeftSemi
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Join, JoinHint, Limit, LogicalPlan, Project}
import org.apache.spark.sql.silt.SparkInternals

/**
 * The probes a DELETE, UPDATE or MERGE gives the rows it reads (`txn.RowProbe`): its own resolved
 * condition, run over a concurrent commit's new files as a scan of the target with the condition
 * pushed into it, in the same session. Each finds one matching row at most (a limit of 1).
 */
object RowProbes {
  /** A DELETE's or UPDATE's: the rows `condition` holds for (None: every row). */
  def condition(spark: SparkSession, t: DmlTarget, condition: Option[Expression]): RowProbe =
    new TargetProbe(spark, t, s"where ${unqualified(condition.getOrElse(Literal.TrueLiteral))}",
      rows => Filter(condition.getOrElse(Literal.TrueLiteral), rows))

  /**
   * A MERGE's: the rows a row of `source` (the plan the MERGE joined, as it read it) joins under `on`,
   * and where the MERGE has NOT MATCHED BY SOURCE clauses, the rows one of their `bySource` conditions
   * (None: every row) holds for.
   */
  def merge(spark: SparkSession, t: DmlTarget, source: LogicalPlan, on: Expression,
      bySource: Seq[Option[Expression]]): RowProbe = {
    val joining = new TargetProbe(spark, t, s"that a source row of this MERGE joins (ON ${unqualified(on)})",
      rows => Join(rows, source, LeftSemi, Some(on), JoinHint.NONE))
    if (bySource.isEmpty) joining else {
      val unmatched = bySource.map(_.getOrElse(Literal.TrueLiteral)).reduce(Or)
      val changed = new TargetProbe(spark, t, s"where ${unqualified(unmatched)} (its NOT MATCHED BY SOURCE clauses)",
        rows => Filter(unmatched, rows))
      new RowProbe {
        override def rows: String = s"${joining.rows}, or ${changed.rows}"
        override def firstMatching(files: Seq[AddFile]): Option[String] =
          joining.firstMatching(files).orElse(changed.firstMatching(files))
      }
    }
  }

  /** The first row of some files (a scan of the target over them) that `matching` keeps. */
  private final class TargetProbe(spark: SparkSession, t: DmlTarget, override val rows: String,
      matching: LogicalPlan => LogicalPlan) extends RowProbe {
    override def firstMatching(files: Seq[AddFile]): Option[String] = if (files.isEmpty) None else {
      val target = RowChanges.targetWithRowIds(t.scanOf(spark, files))
      val plan = Limit(Literal(1), Project(Seq(target.path), matching(target.plan)))
      val byUri = files.map(a => t.snapshot.filePath(a).toUri.toString -> a.path).toMap
      SparkInternals.dataFrame(spark, plan).collect().headOption.map(r => String.valueOf(r.get(0)))
        .map(uri => byUri.getOrElse(uri, uri))
    }
  }
}
