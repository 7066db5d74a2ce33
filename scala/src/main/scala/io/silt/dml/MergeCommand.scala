package io.silt.dml

import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{FullOuter, Inner, LeftOuter, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.silt.SparkInternals

/**
 * MERGE INTO target USING source ON condition WHEN MATCHED … WHEN NOT MATCHED … WHEN NOT
 * MATCHED BY SOURCE …: one join of target and source decides, per row, the first clause that
 * applies; changed and deleted target rows are marked (or their files rewritten), new and
 * updated rows written. A target row that several source rows would change is an error.
 */
final case class MergeCommand(
    target: LogicalPlan,
    source: LogicalPlan,
    condition: Expression,
    matched: Seq[MergeAction],
    notMatched: Seq[MergeAction],
    notMatchedBySource: Seq[MergeAction])
    extends RowLevelCommand("MERGE", Seq("num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"))
    with PredicateHelper {



  override protected def execute(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row] = {
    val tz = spark.sessionState.conf.sessionLocalTimeZone
    // A target row outside the ON condition's target-only conjuncts matches no source row, so
    // unless a NOT MATCHED BY SOURCE clause may change it, its file need not be read.
    val candidates = if (notMatchedBySource.nonEmpty) t.snapshot.files
      else t.candidateFiles(targetOnly(condition, t).reduceLeftOption(And))
    txn.readFiles(candidates)
    val (scan, path, row) = RowChanges.targetWithRowIds(t.scanOf(spark, candidates))
    val targetSide = Project(scan.output :+ Alias(Literal.TrueLiteral, "__silt_target_row")(), scan)
    val sourceSide = Project(source.output :+ Alias(Literal.TrueLiteral, "__silt_source_row")(), source)
    // Copy-on-write rewrites whole files, so it needs every target row, matched or not.
    val allTargetRows = notMatchedBySource.nonEmpty || !DeletionVectors.enabled(t.snapshot)
    val joinType = (allTargetRows, notMatched.nonEmpty) match {
      case (true, true) => FullOuter
      case (true, false) => LeftOuter
      case (false, true) => RightOuter
      case (false, false) => Inner
    }
    val join = Join(targetSide, sourceSide, joinType, Some(condition), JoinHint.NONE)
    // Refer to the join's own output, whose outer sides are nullable.
    def out(a: Attribute): Attribute = join.output.find(_.exprId == a.exprId).get
    val hasTarget = IsNotNull(out(targetSide.output.last))
    val hasSource = IsNotNull(out(sourceSide.output.last))
    val columns = t.relation.output

    val clauses: Seq[(Expression, MergeAction)] =
      matched.map(a => And(And(hasTarget, hasSource), a.condition.getOrElse(Literal.TrueLiteral)) -> a) ++
        notMatched.map(a => And(Not(hasTarget), a.condition.getOrElse(Literal.TrueLiteral)) -> a) ++
        notMatchedBySource.map(a => And(Not(hasSource), a.condition.getOrElse(Literal.TrueLiteral)) -> a)
    val action = RowChanges.actionOf(clauses.map { case (c, a) => c -> MergeCommand.change(a) }, RowChange.Keep)
    val values = columns.map { c =>
      val cases = clauses.collect {
        case (cond, a: UpdateAction) => cond -> valueFor(a.assignments, c, out(c), tz)
        case (cond, a: InsertAction) => cond -> valueFor(a.assignments, c, Literal(null, c.dataType), tz)
      }
      if (cases.isEmpty) out(c) else CaseWhen(cases, out(c))
    }
    val changes = RowChanges.project(values, columns, out(path), out(row), action, join)
    val skipping = Map("numTargetFilesBeforeSkipping" -> t.snapshot.numFiles.toLong, "numTargetFilesAfterSkipping" -> candidates.size.toLong)
    val m = RowLevelWriter.commit(spark, txn, t.snapshot, candidates, SparkInternals.dataFrame(spark, changes),
      mayWriteRows = true, metrics => Operation.Merge(condition.sql, matched.map(describe), notMatched.map(describe),
        notMatchedBySource.map(describe), metrics ++ skipping))
    Seq(Row(m.affected, m.updated, m.deleted, m.inserted))
  }

  /** The deterministic conjuncts of `condition` that read target columns only. */
  private def targetOnly(condition: Expression, t: DmlTarget): Seq[Expression] =
    splitConjunctivePredicates(condition).filter(c => c.deterministic && c.references.subsetOf(t.relation.outputSet))

  private def valueFor(assignments: Seq[Assignment], column: Attribute, default: Expression, tz: String): Expression =
    assignments.find(a => UpdateCommand.assignedAttribute(a).exprId == column.exprId)
      .map(a => RowChanges.castTo(a.value, column, tz)).getOrElse(default)

  private def describe(a: MergeAction): Operation.MergeClause =
    Operation.MergeClause(MergeCommand.change(a).toString.toLowerCase, a.condition.map(_.sql))
}

object MergeCommand {
  def change(a: MergeAction): RowChange = a match {
    case _: UpdateAction => RowChange.Update
    case _: DeleteAction => RowChange.Delete
    case _: InsertAction => RowChange.Insert
    case other => throw new io.silt.errors.InvalidTableOperationException(s"MERGE action ${other.getClass.getSimpleName} is not supported")
  }
}
