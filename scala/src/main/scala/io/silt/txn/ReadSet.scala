package io.silt.txn

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * What a transaction read, so that conflict detection can tell whether a concurrent commit
 * would have changed it. `partitionPredicates` select the partitions read; an empty read set is
 * a blind append.
 */
final case class ReadSet(
    wholeTable: Boolean = false,
    partitionPredicates: Seq[Expression] = Nil,
    files: Set[String] = Set.empty) {

  def isEmpty: Boolean = !wholeTable && partitionPredicates.isEmpty && files.isEmpty

}
