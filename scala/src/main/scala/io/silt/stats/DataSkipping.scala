package io.silt.stats

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Decides from a file's min/max/null-count statistics whether it may hold rows matching a
 * predicate. Sound by construction: anything not understood may match.
 */
object DataSkipping {

  /** A column reference with its statistics path, type and an order-preserving conversion. */
  private final case class Col(path: Seq[String], statType: DataType, compareType: DataType, convert: Any => Any)

  private object ColRef {
    def unapply(e: Expression): Option[Col] = e match {
      case a: AttributeReference => Some(Col(Seq(a.name), a.dataType, a.dataType, identityFn))
      case g: GetStructField => unapply(g.child).filter(c => c.convert eq identityFn)
        .map(c => Col(c.path :+ g.extractFieldName, g.dataType, g.dataType, identityFn))
      case c: Cast if wideningCast(c.child.dataType, c.dataType) =>
        unapply(c.child).filter(_.convert eq identityFn).map { col =>
          val tz = c.timeZoneId
          col.copy(compareType = c.dataType, convert = v => Cast(Literal(v, c.child.dataType), c.dataType, tz).eval())
        }
      case _ => None
    }
  }
  private val identityFn: Any => Any = identity

  private object Lit {
    def unapply(e: Expression): Option[Any] = e match {
      case l: Literal if l.value != null => Some(l.value)
      case _ => None
    }
  }

  private def wideningCast(from: DataType, to: DataType): Boolean = (from, to) match {
    case (ByteType | ShortType | IntegerType, LongType | DoubleType) => true
    case (ByteType | ShortType, IntegerType) => true
    case (ByteType | ShortType | IntegerType | LongType, _: DecimalType) => Cast.canUpCast(from, to)
    case (FloatType, DoubleType) => true
    case (DateType, TimestampType | TimestampNTZType) => true
    case _ => false
  }

  /** Whether a file with these statistics may hold a row for which every filter is true. */
  def mayMatch(filters: Seq[Expression], stats: FileStats): Boolean = filters.forall(f => mayBeTrue(f, stats))

  private def mayBeTrue(e: Expression, s: FileStats): Boolean = e match {
    case And(l, r) => mayBeTrue(l, s) && mayBeTrue(r, s)
    case Or(l, r) => mayBeTrue(l, s) || mayBeTrue(r, s)
    case Not(inner) => mayBeFalse(inner, s)
    case Literal(false, BooleanType) | Literal(null, _) => false
    case IsNull(ColRef(c)) => s.nullCount(c.path).forall(_ > 0)
    case IsNotNull(ColRef(c)) => !allNull(c, s)
    case EqualTo(ColRef(c), Lit(v)) => bounds(c, s)((lo, hi, ord) => ord.lteq(lo, v) && ord.lteq(v, hi))
    case EqualTo(Lit(v), ColRef(c)) => mayBeTrue(EqualTo(e.children(1), e.children(0)), s)
    case EqualNullSafe(a @ ColRef(_), l @ Lit(_)) => mayBeTrue(EqualTo(a, l), s)
    case LessThan(ColRef(c), Lit(v)) => bounds(c, s)((lo, _, ord) => ord.lt(lo, v))
    case LessThanOrEqual(ColRef(c), Lit(v)) => bounds(c, s)((lo, _, ord) => ord.lteq(lo, v))
    case GreaterThan(ColRef(c), Lit(v)) => bounds(c, s)((_, hi, ord) => ord.gt(hi, v))
    case GreaterThanOrEqual(ColRef(c), Lit(v)) => bounds(c, s)((_, hi, ord) => ord.gteq(hi, v))
    case LessThan(Lit(v), ColRef(c)) => bounds(c, s)((_, hi, ord) => ord.gt(hi, v))
    case LessThanOrEqual(Lit(v), ColRef(c)) => bounds(c, s)((_, hi, ord) => ord.gteq(hi, v))
    case GreaterThan(Lit(v), ColRef(c)) => bounds(c, s)((lo, _, ord) => ord.lt(lo, v))
    case GreaterThanOrEqual(Lit(v), ColRef(c)) => bounds(c, s)((lo, _, ord) => ord.lteq(lo, v))
    case In(ColRef(c), list) if list.forall(_.isInstanceOf[Literal]) =>
      val values = list.map(_.asInstanceOf[Literal].value).filter(_ != null)
      bounds(c, s)((lo, hi, ord) => values.exists(v => ord.lteq(lo, v) && ord.lteq(v, hi)))
    case InSet(ColRef(c), set) =>
      val values = set.filter(_ != null)
      bounds(c, s)((lo, hi, ord) => values.exists(v => ord.lteq(lo, v) && ord.lteq(v, hi)))
    case StartsWith(ColRef(c), Lit(prefix: UTF8String)) if c.compareType == StringType =>
      bounds(c, s) { (lo, hi, ord) =>
        val n = prefix.numChars()
        val l = lo.asInstanceOf[UTF8String].substring(0, n)
        val h = hi.asInstanceOf[UTF8String].substring(0, n)
        ord.lteq(l, prefix) && ord.lteq(prefix, h)
      }
    case _ => true
  }

  /** Whether the file may hold a row for which `e` is false (so that NOT e is true). */
  private def mayBeFalse(e: Expression, s: FileStats): Boolean = e match {
    case And(l, r) => mayBeFalse(l, s) || mayBeFalse(r, s)
    case Or(l, r) => mayBeFalse(l, s) && mayBeFalse(r, s)
    case Not(inner) => mayBeTrue(inner, s)
    case Literal(true, BooleanType) | Literal(null, _) => false
    case IsNull(x) => mayBeTrue(IsNotNull(x), s)
    case IsNotNull(x) => mayBeTrue(IsNull(x), s)
    case LessThan(a, b) => mayBeTrue(GreaterThanOrEqual(a, b), s)
    case LessThanOrEqual(a, b) => mayBeTrue(GreaterThan(a, b), s)
    case GreaterThan(a, b) => mayBeTrue(LessThanOrEqual(a, b), s)
    case GreaterThanOrEqual(a, b) => mayBeTrue(LessThan(a, b), s)
    case EqualTo(ColRef(c), Lit(v)) => bounds(c, s)((lo, hi, ord) => !(ord.equiv(lo, v) && ord.equiv(hi, v)))
    case EqualTo(Lit(_), ColRef(_)) => mayBeFalse(EqualTo(e.children(1), e.children(0)), s)
    case In(ColRef(c), list) if list.forall(l => l.isInstanceOf[Literal] && l.asInstanceOf[Literal].value != null) =>
      val values = list.map(_.asInstanceOf[Literal].value)
      bounds(c, s)((lo, hi, ord) => !(ord.equiv(lo, hi) && values.exists(v => ord.equiv(lo, v))))
    case _ => true
  }

  private def allNull(c: Col, s: FileStats): Boolean =
    s.tightBounds && (for (n <- s.numRecords; nc <- s.nullCount(c.path)) yield nc >= n).getOrElse(false)

  /**
   * Applies `test` to the column's [min, max] in the compared type. No rows with a value (all
   * null) means no comparison can be true; missing bounds mean the file may match.
   */
  private def bounds(c: Col, s: FileStats)(test: (Any, Any, Ordering[Any]) => Boolean): Boolean = {
    if (allNull(c, s)) return false
    (s.min(c.path, c.statType), s.max(c.path, c.statType)) match {
      case (Some(lo), Some(hi)) =>
        val l = c.convert(lo)
        val h = c.convert(hi)
        if (l == null || h == null) true
        else test(l, h, PhysicalDataType.ordering(c.compareType))
      case _ => true
    }
  }
}
