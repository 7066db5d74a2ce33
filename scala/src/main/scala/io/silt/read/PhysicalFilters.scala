package io.silt.read

import scala.util.Try

import io.silt.features.ColumnMapping
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.sources._

/**
 * Filters Spark pushes to the Parquet reader, renamed from logical to physical column names
 * under column mapping, so that row groups are still skipped. A filter that cannot be renamed is
 * left out: Spark evaluates every filter again on the rows read, so a filter left out costs
 * skipping only.
 */
private[read] object PhysicalFilters {

  def apply(filters: Seq[Filter], mapping: ColumnMapping): Seq[Filter] =
    if (!mapping.enabled) filters else filters.flatMap(rename(_, mapping))

  /** A column path as Spark's Parquet filters name it: parts joined by dots, quoted where needed. */
  private def quoted(path: Seq[String]): String = path.map { p =>
    if (p.matches("[a-zA-Z0-9_]+") && !p.matches("\\d+")) p else "`" + p.replace("`", "``") + "`"
  }.mkString(".")

  private def rename(filter: Filter, mapping: ColumnMapping): Option[Filter] = {
    def name(attribute: String): Option[String] = {
      // Spark quotes nested names only when nested pushdown is on, so a whole name is tried first.
      val path = if (mapping.physicalPath(Seq(attribute)).isDefined) Seq(attribute)
        else Try(CatalystSqlParser.parseMultipartIdentifier(attribute)).getOrElse(Seq(attribute))
      mapping.physicalPath(path).map(quoted)
    }
    def r(f: Filter): Option[Filter] = f match {
      case EqualTo(a, v) => name(a).map(EqualTo(_, v))
      case EqualNullSafe(a, v) => name(a).map(EqualNullSafe(_, v))
      case GreaterThan(a, v) => name(a).map(GreaterThan(_, v))
      case GreaterThanOrEqual(a, v) => name(a).map(GreaterThanOrEqual(_, v))
      case LessThan(a, v) => name(a).map(LessThan(_, v))
      case LessThanOrEqual(a, v) => name(a).map(LessThanOrEqual(_, v))
      case In(a, vs) => name(a).map(In(_, vs))
      case IsNull(a) => name(a).map(IsNull(_))
      case IsNotNull(a) => name(a).map(IsNotNull(_))
      case StringStartsWith(a, v) => name(a).map(StringStartsWith(_, v))
      case StringEndsWith(a, v) => name(a).map(StringEndsWith(_, v))
      case StringContains(a, v) => name(a).map(StringContains(_, v))
      case And(left, right) => for (l <- r(left); rr <- r(right)) yield And(l, rr)
      case Or(left, right) => for (l <- r(left); rr <- r(right)) yield Or(l, rr)
      case Not(child) => r(child).map(Not(_))
      case t: AlwaysTrue => Some(t)
      case f: AlwaysFalse => Some(f)
      case _ => None
    }
    // A conjunction keeps the conjuncts that rename; anything under Or or Not must rename whole.
    filter match {
      case And(left, right) => (rename(left, mapping) ++ rename(right, mapping)).reduceOption(And(_, _))
      case other => r(other)
    }
  }
}
