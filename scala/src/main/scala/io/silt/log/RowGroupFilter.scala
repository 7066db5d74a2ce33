package io.silt.log

import org.apache.parquet.filter2.predicate.FilterPredicate
import org.apache.parquet.schema.MessageType
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

/**
 * A Parquet filter over checkpoint columns (`add.partitionValues_parsed.*`, `add.stats_parsed.*`)
 * that rules out row groups and pages by their statistics, with the physical type each column it
 * names must have. A file lacking one, or holding it in another type, is read whole: parquet-mr
 * would take a missing column for all nulls and skip every row group.
 */
final case class RowGroupFilter(predicate: FilterPredicate, columns: Map[Seq[String], PrimitiveTypeName]) {
  /** The predicate, if `schema` (a checkpoint file's) has every column it names, as typed. */
  def forFile(schema: MessageType): Option[FilterPredicate] = {
    def typed(path: Seq[String], t: PrimitiveTypeName) = schema.containsPath(path.toArray) && {
      val c = schema.getType(path: _*)
      c.isPrimitive && c.asPrimitiveType.getPrimitiveTypeName == t
    }
    if (columns.forall { case (p, t) => typed(p, t) }) Some(predicate) else None
  }
}
