package io.silt.dml

import io.silt.actions.AddFile
import io.silt.features.{ChangeDataFeed, TableFeatures}
import io.silt.read.{SiltFileIndex, SiltRelation}
import io.silt.txn.OptimisticTransaction
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.EliminateSubqueryAliases
import org.apache.spark.sql.catalyst.expressions.{Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}

/** The Silt table a DELETE, UPDATE or MERGE writes to, as the analyzer resolved it. */
final case class DmlTarget(relation: LogicalRelation, index: SiltFileIndex) extends PredicateHelper {
  def snapshot = index.snapshot

  /** Whether the command records its changes in the table's change data feed (see [[ChangeRows]]). */
  def changeDataFeed: Boolean = ChangeDataFeed.enabled(snapshot.metadata)

  /**
   * A transaction on the snapshot the command's plan was analyzed against; metadata the plan
   * evolved (MERGE WITH SCHEMA EVOLUTION) is committed with the rows.
   */
  def startTransaction(spark: SparkSession): OptimisticTransaction = {
    TableFeatures.checkWritable(snapshot.tablePath.toString, snapshot.protocol, snapshot.metadata)
    val txn = new OptimisticTransaction(io.silt.log.TableLog.forPath(spark, snapshot.tablePath.toString), Some(snapshot), spark)
    if (snapshot.uncommittedMetadata) txn.updateMetadata(snapshot.metadata)
    txn
  }

  /** The files that may hold rows matching `condition` (partition pruning and statistics). */
  def candidateFiles(condition: Option[Expression]): Seq[AddFile] = {
    val partitionColumns = snapshot.metadata.partitionColumns.map(_.toLowerCase).toSet
    val conjuncts = condition.toSeq.flatMap(splitConjunctivePredicates)
    val (partitionFilters, dataFilters) = conjuncts.partition(_.references.forall(a => partitionColumns.contains(a.name.toLowerCase)))
    index.matchingFiles(partitionFilters, dataFilters)
  }

  /** Whether a condition only reads partition columns (so whole files match or not). */
  def onlyPartitionColumns(condition: Expression): Boolean = {
    val partitionColumns = snapshot.metadata.partitionColumns.map(_.toLowerCase).toSet
    condition.references.forall(a => partitionColumns.contains(a.name.toLowerCase))
  }

  /** The same relation over just these files, with the same attribute ids; `wholeFiles`: never split a file. */
  def scanOf(spark: SparkSession, files: Seq[AddFile], wholeFiles: Boolean = false): LogicalRelation =
    relation.copy(relation = SiltRelation.forFiles(spark, snapshot, files.toIndexedSeq, wholeFiles))
}

object DmlTarget {
  def unapply(plan: LogicalPlan): Option[DmlTarget] = EliminateSubqueryAliases(plan) match {
    case l: LogicalRelation => l.relation match {
      case fs: HadoopFsRelation => fs.location match {
        case i: SiltFileIndex => Some(DmlTarget(l, i))
        case _ => None
      }
      case _ => None
    }
    case _ => None
  }
}
