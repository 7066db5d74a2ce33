package io.silt.dml

import io.silt.actions.AddFile
import io.silt.read.SiltFileIndex
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.silt.SparkInternals

/**
 * DELETE FROM t [WHERE condition]. A condition on partition columns only drops whole files
 * without reading them; otherwise matching rows are marked in deletion vectors, or the files
 * holding them are rewritten without them when the table has deletion vectors off.
 */
final case class DeleteCommand(target: LogicalPlan, condition: Option[Expression])
    extends RowLevelCommand("DELETE", Seq("num_affected_rows")) {

  override protected def execute(spark: SparkSession, t: DmlTarget, txn: OptimisticTransaction): Seq[Row] = {
    val candidates = t.candidateFiles(condition)
    txn.readFiles(candidates)
    txn.readRows(condition, Some(RowProbes.condition(spark, t, condition)))
    if (candidates.isEmpty) return Seq(Row(0L))
    val wholeFiles = condition.forall(t.onlyPartitionColumns)
    if (wholeFiles) {
      val now = System.currentTimeMillis()
      val deleted = candidates.map(_.numLogicalRecords.getOrElse(0L)).sum
      txn.commit(candidates.map(_.remove(now)), Operation.Delete(condition.map(_.sql),
        Map("numRemovedFiles" -> candidates.size.toLong, "numRemovedBytes" -> candidates.map(_.size).sum,
          "numDeletedRows" -> deleted)))
      return Seq(Row(deleted))
    }
    val cond = condition.get
    val useDvs = DeletionVectors.enabled(t.snapshot)
    // With DVs and files Spark would not split anyway, each scan task sees whole files and writes
    // their DVs itself: no shuffle gathers the rows of a file.
    val wholeFileSession = if (!useDvs) None
      else RowDeletion.wholeFileScan(spark, new SiltFileIndex(spark, t.snapshot, Some(candidates.toIndexedSeq)))
    val unsplit = wholeFileSession.isDefined
    def changesOver(files: Seq[AddFile]) = {
      val TargetRows(scan, path, row, _) = RowChanges.targetWithRowIds(t.scanOf(wholeFileSession.getOrElse(spark), files, unsplit))
      // With DVs only matching rows matter, so the condition can filter (and be pushed down).
      val (input, action) = if (useDvs) (Filter(cond, scan), RowChanges.actionOf(Nil, RowChange.Delete))
        else (scan, RowChanges.actionOf(Seq(cond -> RowChange.Delete), RowChange.Keep))
      val preimage = if (t.changeDataFeed) ChangeRows.preimage(t.relation.output, t.relation.output) else Nil
      SparkInternals.dataFrame(spark, RowChanges.project(t.relation.output, t.relation.output, path, row, action, input,
        preimage))
    }
    val metrics = RowLevelWriter.commit(spark, txn, t.snapshot, candidates, changesOver,
      mayWriteRows = false, m => Operation.Delete(condition.map(_.sql), m.deleteMetrics), onlyMarkedRows = true,
      rowsByFile = unsplit)
    Seq(Row(metrics.deleted))
  }
}
