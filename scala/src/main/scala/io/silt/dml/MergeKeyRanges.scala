package io.silt.dml

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.functions.{count, lit, max, min}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types._

/**
 * What a MERGE's source rows allow of the target: for each equality of its ON condition between a
 * target column and a source column, the range of the source's values. A target row outside that
 * range joins no source row, so its file need not be read when statistics rule the range out, and
 * its row goes before the join rather than through it. The source is read once (cached), so the
 * ranges hold for every row the MERGE joins. A source of new keys (new orders, say) then reads
 * none of the target's older files.
 */
final case class MergeKeyRanges(sourceRows: Long, ranges: Seq[Expression]) {
  /** Whether no target row can match: a key that no source row has a value for (an empty source). */
  def matchNothing: Boolean = ranges.contains(Literal.FalseLiteral)
}

object MergeKeyRanges extends PredicateHelper {
  /**
   * The source's rows and its key ranges, in one job over the cached source `src`: `condition`'s
   * top-level `target column = source column` equalities over `target` and `source` attributes.
   */
  def of(src: DataFrame, condition: Expression, target: AttributeSet, source: AttributeSet): MergeKeyRanges = {
    val keys = equalities(condition, target, source)
    val aggregates = count(lit(1)) +: keys.flatMap { case (_, s) =>
      Seq(min(SparkInternals.column(s)), max(SparkInternals.column(s))) }
    val row = src.agg(aggregates.head, aggregates.tail: _*).collect().head
    val ranges = keys.zipWithIndex.map { case ((t, _), i) =>
      val (lo, hi) = (row.get(1 + 2 * i), row.get(2 + 2 * i))
      // NULL equals nothing: a key with no value in any source row matches no target row.
      if (lo == null) Literal.FalseLiteral
      else And(GreaterThanOrEqual(t, Literal.create(lo, t.dataType)), LessThanOrEqual(t, Literal.create(hi, t.dataType)))
    }
    MergeKeyRanges(row.getLong(0), ranges)
  }

  /**
   * (target column, source column) of each top-level equality, of the same type and one whose
   * order is equality's: integers, decimals, dates, timestamps and strings compared by their bytes.
   * (Floating point is left out: -0.0 equals 0.0, and NaN sorts above every number.)
   */
  def equalities(condition: Expression, target: AttributeSet, source: AttributeSet): Seq[(Attribute, Attribute)] =
    splitConjunctivePredicates(condition).collect {
      case EqualTo(a: Attribute, b: Attribute) if target.contains(a) && source.contains(b) => (a, b)
      case EqualTo(b: Attribute, a: Attribute) if target.contains(a) && source.contains(b) => (a, b)
    }.filter { case (a, b) => a.dataType == b.dataType && ordered(a.dataType) }.distinct

  private def ordered(dt: DataType): Boolean = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _: DecimalType => true
    // A collated string (Spark 4) equals strings with other bytes: only the default collation's order is equality's.
    case s: StringType => s.typeName == "string"
    case _ => false
  }
}
