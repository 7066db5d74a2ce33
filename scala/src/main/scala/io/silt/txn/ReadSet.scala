package io.silt.txn

import org.apache.spark.sql.catalyst.expressions.Expression

/** The rows of one read: those matching `condition`; `probe` tests a file's rows against it where statistics cannot. */
final case class RowRead(condition: Expression, probe: Option[RowProbe] = None)

/**
 * What a transaction read, so that conflict detection can tell whether a concurrent commit
 * would have changed it. `partitionPredicates` select the partitions read; `predicates` the rows
 * read (each the condition of one read, on partition and data columns: a concurrent file that may
 * hold a matching row conflicts, or with a probe, one that holds one); an empty read set is a blind append. `partitionValues`: whole
 * partitions read by their values (a dynamic partition overwrite), as `PartitionValues.Comparable` writes them.
 * `onlyMarkedRows`: of the files read, the transaction depends on exactly the rows it marks deleted
 * (a DELETE, UPDATE or MERGE with deletion vectors), so that a concurrent change to other rows of
 * those files is no conflict.
 */
final case class ReadSet(
    wholeTable: Boolean = false,
    partitionPredicates: Seq[Expression] = Nil,
    files: Set[String] = Set.empty,
    partitionValues: Set[Map[String, String]] = Set.empty,
    predicates: Seq[RowRead] = Nil,
    validatesRows: Boolean = false,
    onlyMarkedRows: Boolean = false) {

  def isEmpty: Boolean = !wholeTable && partitionPredicates.isEmpty && files.isEmpty && partitionValues.isEmpty &&
    predicates.isEmpty
}
