package io.silt.log

import org.apache.parquet.filter2.predicate.{FilterApi, FilterPredicate}
import org.apache.parquet.io.api.Binary
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

/**
 * The row groups where any of `columns` (INT32 or BINARY leaves) holds a value, by their null
 * counts: how the few rows of one action kind (protocol, metaData, txn, sidecar…) are read from a
 * checkpoint of millions without reading the rest. A column a file lacks holds no value there.
 */
final case class AnyNonNull(columns: (Seq[String], PrimitiveTypeName)*) {
  /** The predicate for a file of this `schema`; None (read every row group) when a column has another type or none is there. */
  def forFile(schema: MessageType): Option[FilterPredicate] = {
    val present = columns.filter { case (path, _) => schema.containsPath(path.toArray) }
    val typed = present.forall { case (path, t) =>
      val c = schema.getType(path: _*)
      c.isPrimitive && c.asPrimitiveType.getPrimitiveTypeName == t
    }
    if (present.isEmpty || !typed) None
    else Some(present.map { case (path, t) =>
      val name = path.mkString(".")
      if (t == PrimitiveTypeName.INT32) FilterApi.notEq(FilterApi.intColumn(name), null.asInstanceOf[Integer])
      else FilterApi.notEq(FilterApi.binaryColumn(name), null.asInstanceOf[Binary])
    }.reduce[FilterPredicate](FilterApi.or))
  }
}
