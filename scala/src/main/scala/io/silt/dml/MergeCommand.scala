package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.AddFile
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.write.IdentityColumnWrites
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.{Inner, JoinType, LeftAnti, LeftOuter, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical._
import org.apache.spark.sql.catalyst.util.ResolveDefaultColumns
import org.apache.spark.sql.functions.{col, count, lit, max}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.storage.StorageLevel

/**
 * MERGE INTO target USING source ON condition WHEN MATCHED … WHEN NOT MATCHED … WHEN NOT
 * MATCHED BY SOURCE …: per row, the first clause that applies decides its change; changed and
 * deleted target rows are marked in deletion vectors (or their files rewritten), new and updated
 * rows written.
 *
 * The source is read once (cached, each row numbered). An inner join of the target's candidate
 * files with it gives the matches: which target rows change, the files they are in, and which
 * source rows matched. As in Delta Lake, a target row that two source rows match is an error when
 * there is a WHEN MATCHED clause (unless the only one is an unconditional DELETE), whether or not a
 * clause's condition holds; it is found before anything is written. The
 * new rows are the source rows that matched nothing. Only then are files written: with deletion
 * vectors, the changed rows' new versions (from the matches) and the new rows; copy-on-write, the
 * touched files alone, each target row joined only with the source row whose clause changes it, so
 * no target row is written twice.
 */
final case class MergeCommand(
    target: LogicalPlan,
    source: LogicalPlan,
    condition: Expression,
    matched: Seq[MergeAction],
    notMatched: Seq[MergeAction],
    notMatchedBySource: Seq[MergeAction],
    recordedAs: Option[ReplaceMatchingRows.Recorded] = None)
    extends RowLevelCommand("MERGE", Seq("num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"))
    with PredicateHelper {
  import MergeCommand._

  override protected def execute(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row] = {
    // Identity values are generated from the metadata this transaction commits, before any plan runs.
    val placed = notMatched.flatMap(a => IdentityColumnWrites.placed(a)).toSet
    if (placed.isEmpty) merge(spark, t, txn) else {
      val values = IdentityColumnWrites.values(spark, txn, txn.metadata, placed)
      copy(notMatched = notMatched.map(_.transform(values).asInstanceOf[MergeAction])).merge(spark, t, txn)
    }
  }

  private def merge(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row] = {
    val numbered = Project(source.output :+ Alias(MonotonicallyIncreasingID(), SourceIdColumn)(), source)
    val src = SparkInternals.dataFrame(spark, numbered).persist(StorageLevel.MEMORY_AND_DISK)
    try {
      val keys = MergeKeyRanges.of(src, condition, t.relation.outputSet, source.outputSet)
      // A target row outside the ON condition's target-only conjuncts, or outside the source's key
      // ranges, matches no source row, so unless a NOT MATCHED BY SOURCE clause may change it, its
      // file need not be read.
      val readCondition = if (notMatchedBySource.nonEmpty) None
        else (targetOnly(condition, t) ++ keys.ranges).reduceLeftOption(And)
      val candidates = if (notMatchedBySource.isEmpty && keys.matchNothing) Nil else t.candidateFiles(readCondition)
      txn.readFiles(candidates)
      // Any target row the condition allows may match a source row (with no target-only condition,
      // any row): a concurrent commit adding such rows, say the same new key, conflicts, unless none of
      // its rows joins a source row (or is one a NOT MATCHED BY SOURCE clause changes).
      txn.readRows(readCondition, Some(RowProbes.merge(spark, t, src.queryExecution.analyzed, condition,
        notMatchedBySource.map(_.condition))))
      // Rows outside the key ranges go before the join (the ranges hold for every source row).
      val run = new MergeRun(spark, t, src.queryExecution.analyzed, (condition +: keys.ranges).reduce(And))
      val m = run.commit(txn, candidates, metrics => recordedAs.fold[Operation](Operation.Merge(condition.sql,
        matched.map(describe), notMatched.map(describe), notMatchedBySource.map(describe), metrics ++ Map(
          "numSourceRows" -> keys.sourceRows,
          "numTargetFilesBeforeSkipping" -> t.snapshot.numFiles.toLong,
          "numTargetFilesAfterSkipping" -> candidates.size.toLong)))(_.operation(metrics)))
      Seq(Row(m.affected, m.updated, m.deleted, m.inserted))
    } finally src.unpersist()
  }

  /**
   * One execution of the MERGE over the cached, numbered source `src`; `matching`: the ON condition
   * and what it implies of the target's rows (the inner join's condition).
   */
  private final class MergeRun(spark: SparkSession, t: DmlTarget, src: LogicalPlan, matching: Expression) {
    private val tz = spark.sessionState.conf.sessionLocalTimeZone
    private val columns = t.relation.output
    private val sourceId = src.output.last
    private val useDvs = DeletionVectors.enabled(t.snapshot)
    // A matched target row that no clause changes still decides that its source rows insert nothing: the
    // MERGE then depends on more rows than it marks.
    private val onlyMarkedRows = notMatched.isEmpty || matched.lastOption.exists(_.condition.isEmpty)
    // Several source rows may match one target row when nothing but inserts follow from matches,
    // or when the only thing a match does is delete the row.
    private val duplicatesAllowed = matched match {
      case Seq() => true
      case Seq(d: DeleteAction) => d.condition.isEmpty
      case _ => false
    }

    /** Commits the MERGE; `mergeOperation`: the operation committed, given its metrics in Delta Lake's names. */
    def commit(txn: OptimisticTransaction, candidates: Seq[AddFile], mergeOperation: Map[String, Long] => Operation): RowLevelMetrics = {
      val startedNs = System.nanoTime()
      val matchesDf = frame(changes(joined(candidates, Inner, matching), extra = Seq(sourceId)))
      // Copy-on-write rewrites files later, so only the columns that decide a row's change are read now.
      val matches = (if (useDvs) matchesDf else matchesDf.select(RowChanges.PathColumn, RowChanges.RowIndexColumn,
        RowChanges.ActionColumn, SourceIdColumn)).persist(StorageLevel.MEMORY_AND_DISK)
      try {
        val summary = MatchSummary.of(matches)
        if (!duplicatesAllowed) summary.refuseRowsMatchedTwice()
        // The matches hold what WHEN MATCHED clauses change; NOT MATCHED BY SOURCE clauses change the rest.
        val matched = summary.counts
        val operation = (m: RowLevelMetrics) => mergeOperation(m.mergeMetrics ++ Map(
          "numTargetRowsMatchedUpdated" -> matched.updated, "numTargetRowsMatchedDeleted" -> matched.deleted,
          "numTargetRowsNotMatchedBySourceUpdated" -> (m.updated - matched.updated),
          "numTargetRowsNotMatchedBySourceDeleted" -> (m.deleted - matched.deleted)))
        // Only a NOT MATCHED clause makes new rows.
        val inserts = if (notMatched.isEmpty) None else Some(insertsOf(matches).where(isAction(RowChange.Insert)))
        if (notMatchedBySource.nonEmpty) {
          // A target row with no match may change too: every candidate file is read again.
          RowLevelWriter.commit(spark, txn, t.snapshot, candidates, files => (withoutSource(files, matches) +: inserts.toSeq)
            .reduce(_ unionByName _), mayWriteRows = true, operation, onlyMarkedRows)
        } else {
          val counts = summary.counts.copy(inserted = inserts.map(_.count()).getOrElse(0L))
          if (useDvs) {
            val marked = matches.where(isAction(RowChange.Update, RowChange.Delete)).select(RowChanges.PathColumn, RowChanges.RowIndexColumn)
            val newRows = (matches.where(isAction(RowChange.Update)).drop(SourceIdColumn) +: inserts.toSeq).reduce(_ unionByName _)
            val changed = matches.where(isAction(RowChange.Update, RowChange.Delete)).drop(SourceIdColumn)
            val feed = (once(changed, summary.rowsMatchedTwice) +: inserts.toSeq).reduce(_ unionByName _)
            RowLevelWriter.commitWithDeletionVectors(spark, txn, t.snapshot, candidates,
              if (summary.rowsMatchedTwice) marked.distinct() else marked, Some(newRows), Some(counts), operation, onlyMarkedRows,
              changes = Some(feed), startedNs = startedNs)
          } else {
            val touched = RowLevelWriter.filesAt(t.snapshot, candidates, summary.touchedPaths.toSeq)
            val touchedRows = if (touched.isEmpty) None
              else Some(frame(changes(joined(touched, LeftOuter, And(condition, matchedPredicate)))))
            val rewritten = touchedRows.map(_.where(isAction(RowChange.Keep, RowChange.Update)))
            val rows = (rewritten ++ inserts).reduceOption(_ unionByName _)
            val feed = (touchedRows.map(r => once(r.where(isAction(RowChange.Update, RowChange.Delete)), duplicatesAllowed)) ++
              inserts).reduceOption(_ unionByName _)
            RowLevelWriter.commitCopyOnWrite(spark, txn, t.snapshot, touched, rows, counts, operation, changes = feed,
              startedNs = startedNs)
          }
        }
      } finally matches.unpersist()
    }

    /** Target rows of `files` joined with source rows; the flags say which side a row has. */
    private final class Joined(val plan: LogicalPlan, val path: Attribute, val row: Attribute,
        val hasTarget: Expression, val hasSource: Expression, val noMatch: Expression) {
      def out(a: Attribute): Attribute = plan.output.find(_.exprId == a.exprId).get
    }

    private def joined(files: Seq[AddFile], joinType: JoinType, on: Expression): Joined = {
      val target = RowChanges.targetWithRowIds(t.scanOf(spark, files))
      joinedWith(target.plan, target.path, target.row, src, joinType, on)
    }

    private def joinedWith(targetRows: LogicalPlan, path: Attribute, row: Attribute, sourceRows: LogicalPlan,
        joinType: JoinType, on: Expression): Joined = {
      val targetSide = Project(targetRows.output :+ Alias(Literal.TrueLiteral, "__silt_target_row")(), targetRows)
      val sourceSide = Project(sourceRows.output :+ Alias(Literal.TrueLiteral, "__silt_source_row")(), sourceRows)
      val plan = Join(targetSide, sourceSide, joinType, Some(on), JoinHint.NONE)
      // Refer to the join's own output, whose outer sides are nullable.
      def flag(a: Attribute) = IsNotNull(plan.output.find(_.exprId == a.exprId).get)
      new Joined(plan, path, row, flag(targetSide.output.last), flag(sourceSide.output.last), Not(flag(sourceSide.output.last)))
    }

    /** The row-change plan of a join: each row's first applicable clause, its new values. */
    private def changes(j: Joined, extra: Seq[Attribute] = Nil): LogicalPlan = {
      def when(a: MergeAction) = a.condition.getOrElse(Literal.TrueLiteral)
      val clauses: Seq[(Expression, MergeAction)] =
        matched.map(a => And(And(j.hasTarget, j.hasSource), when(a)) -> a) ++
          notMatched.map(a => And(Not(j.hasTarget), when(a)) -> a) ++
          notMatchedBySource.map(a => And(And(j.hasTarget, j.noMatch), when(a)) -> a)
      val action = RowChanges.actionOf(clauses.map { case (c, a) => c -> change(a) }, RowChange.Keep)
      val values = columns.map { c =>
        val cases = clauses.collect {
          case (cond, a: UpdateAction) => cond -> valueFor(a.assignments, c, j.out(c))
          // a column an INSERT clause leaves out takes its default (null without one, which a NOT NULL
          // column's check then refuses by name), as in INSERT
          case (cond, a: InsertAction) =>
            cond -> valueFor(a.assignments, c, ResolveDefaultColumns.getDefaultValueExprOrNullLit(c.withNullability(true)))
        }
        if (cases.isEmpty) j.out(c) else CaseWhen(cases, j.out(c))
      }
      val preimage = if (t.changeDataFeed) ChangeRows.preimage(columns.map(j.out), columns) else Nil
      RowChanges.project(values, columns, j.out(j.path), j.out(j.row), action, j.plan, extra.map(j.out) ++ preimage)
    }

    /** The source rows that match no target row, with the NOT MATCHED clauses applied. */
    private def insertsOf(matches: DataFrame): DataFrame = {
      val matchedIds = matches.select(col(SourceIdColumn).as("__silt_matched_source")).queryExecution.analyzed
      val unmatched = Join(src, matchedIds, LeftAnti, Some(EqualTo(sourceId, matchedIds.output.head)), JoinHint.NONE)
      // An empty target side: every row is a source row without a target row.
      val TargetRows(_, path, row, tracked) = RowChanges.targetWithRowIds(t.scanOf(spark, Nil))
      val noTarget = LocalRelation(columns ++ Seq(path, row) ++ tracked)
      frame(changes(joinedWith(noTarget, path, row, unmatched, RightOuter, Literal.FalseLiteral)))
    }

    /**
     * The target rows of `files`, each with the source row whose WHEN MATCHED clause changes it, or
     * none; `noMatch` (for NOT MATCHED BY SOURCE) only when no source row matches it at all.
     */
    private def withoutSource(files: Seq[AddFile], matches: DataFrame): DataFrame = {
      val j = joined(files, LeftOuter, And(condition, matchedPredicate))
      val keys = Distinct(matches.select(col(RowChanges.PathColumn).as("__silt_matched_path"),
        col(RowChanges.RowIndexColumn).as("__silt_matched_row")).queryExecution.analyzed)
      val (mPath, mRow) = (keys.output(0), keys.output(1))
      val flagged = Join(j.plan, keys, LeftOuter,
        Some(And(EqualTo(Cast(j.out(j.path), mPath.dataType), mPath), EqualTo(j.out(j.row), mRow))), JoinHint.NONE)
      val rows = frame(changes(new Joined(flagged, j.path, j.row, j.hasTarget, j.hasSource,
        And(j.noMatch, IsNull(flagged.output.find(_.exprId == mPath.exprId).get)))))
      // A row that several source rows delete comes once per source row.
      if (matched.nonEmpty && duplicatesAllowed) rows.dropDuplicates(RowChanges.PathColumn, RowChanges.RowIndexColumn) else rows
    }

    /** True for a target row that some WHEN MATCHED clause changes. */
    private lazy val matchedPredicate: Expression =
      if (matched.isEmpty) Literal.FalseLiteral
      else matched.map(_.condition.getOrElse(Literal.TrueLiteral)).reduce(Or)

    /** Target rows once each, when one may come once per source row that matched it. */
    private def once(rows: DataFrame, mayRepeat: Boolean): DataFrame =
      if (mayRepeat) rows.dropDuplicates(RowChanges.PathColumn, RowChanges.RowIndexColumn) else rows

    private def isAction(kinds: RowChange*) = col(RowChanges.ActionColumn).isin(kinds.map(_.code): _*)

    private def frame(plan: LogicalPlan): DataFrame = SparkInternals.dataFrame(spark, plan)

    private def valueFor(assignments: Seq[Assignment], column: Attribute, default: => Expression): Expression =
      assignments.find(a => UpdateCommand.assignedAttribute(a).exprId == column.exprId)
        .map(a => RowChanges.castTo(a.value, column, tz)).getOrElse(default)
  }

  /** The deterministic conjuncts of `condition` that read target columns only. */
  private def targetOnly(condition: Expression, t: DmlTarget): Seq[Expression] =
    splitConjunctivePredicates(condition).filter(c => c.deterministic && c.references.subsetOf(t.relation.outputSet))

  private def describe(a: MergeAction): Operation.MergeClause =
    Operation.MergeClause(change(a).toString.toLowerCase, a.condition.map(_.sql))
}

/**
 * What the matches of a MERGE come to, per file and change: the target rows (not the matches)
 * each change applies to, and the most source rows any one of those rows matched.
 */
private final case class MatchSummary(perFile: Seq[(String, RowChange, Long, Long)]) {
  def counts: RowCounts = RowCounts.of(perFile.groupBy(_._2).map { case (k, fs) => k -> fs.map(_._3).sum })
  def touchedPaths: Set[String] = perFile.collect { case (p, RowChange.Update | RowChange.Delete, _, _) => p }.toSet
  def rowsMatchedTwice: Boolean = perFile.exists(_._4 > 1)

  /** Fails when a target row matches more than one source row. */
  def refuseRowsMatchedTwice(): Unit = perFile.find(_._4 > 1).foreach { case (p, _, _, n) =>
    throw new InvalidTableOperationException(s"a row of $p matches $n source rows of this MERGE, which cannot tell " +
      "which one should change it. Make the source hold at most one row per target row (deduplicate it on the " +
      "ON condition's keys), or narrow the ON condition.")
  }
}

private object MatchSummary {
  /** One job over the matches (file path, row index, change; one row per matching source row). */
  def of(matches: DataFrame): MatchSummary = {
    val path = col(RowChanges.PathColumn)
    val perRow = matches.groupBy(path, col(RowChanges.RowIndexColumn))
      .agg(max(col(RowChanges.ActionColumn)).as("change"), count(lit(1)).as("matches"))
    MatchSummary(perRow.groupBy(path, col("change")).agg(count(lit(1)), max(col("matches"))).collect().toSeq
      .map(r => (r.getString(0), RowChange.fromCode(r.getInt(1)), r.getLong(2), r.getLong(3))))
  }
}

object MergeCommand {
  /** The number each source row gets when the source is read (once) for a MERGE. */
  val SourceIdColumn = "__silt_source_id"

  def change(a: MergeAction): RowChange = a match {
    case _: UpdateAction => RowChange.Update
    case _: DeleteAction => RowChange.Delete
    case _: InsertAction => RowChange.Insert
    case other => throw new InvalidTableOperationException(s"MERGE action ${other.getClass.getSimpleName} is not supported")
  }
}
