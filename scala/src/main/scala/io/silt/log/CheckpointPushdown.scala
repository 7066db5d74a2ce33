package io.silt.log

import io.silt.actions.Metadata
import io.silt.features.ColumnMapping
import org.apache.parquet.filter2.predicate.{FilterApi, FilterPredicate, Operators}
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The row-group filter of a scan's partition filters, over a checkpoint's typed partition values
 * (`add.partitionValues_parsed.<physical name>`): the conjuncts it can express (=, <=>, IN, <, <=,
 * >, >=, IS [NOT] NULL of an int, long, date, string or boolean partition column and literals) rule
 * out row groups and pages; the exact match of every filter is still made on each file read.
 */
object CheckpointPushdown {
  private type Pushed = (FilterPredicate, Map[Seq[String], PrimitiveTypeName])
  private val MaxInValues = 100

  def apply(filters: Seq[Expression], metadata: Metadata): Option[RowGroupFilter] = apply(filters, Nil, metadata)

  /**
   * The row-group filter of a scan's partition filters and data filters. A data filter on a
   * top-level int, long, short, byte or date column becomes bounds on the files' statistics
   * (`add.stats_parsed.minValues` / `maxValues`), null-safe: a file without those statistics (its
   * bound null, which a row group's null count shows) always stays.
   */
  def apply(filters: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata): Option[RowGroupFilter] = {
    val pushed = partitionFilters(filters, metadata) ++ dataFilters.flatMap(statsFilter(_, metadata))
    pushed.reduceOption(both(FilterApi.and)).map { case (p, cols) => RowGroupFilter(p, cols) }
  }

  private def statsFilter(e: Expression, metadata: Metadata): Option[Pushed] = {
    val partitions = metadata.partitionColumns.map(_.toLowerCase).toSet
    def bounds(a: Attribute): Option[(Typed, Typed)] = metadata.schema.fields.find(_.name.equalsIgnoreCase(a.name))
      .filter(f => !partitions(f.name.toLowerCase) && Bounded(f.dataType)).flatMap { f =>
        val physical = ColumnMapping.physicalName(f)
        if (physical.contains(".")) None
        else for (lo <- Typed(Seq("add", "stats_parsed", "minValues", physical), f.dataType);
                  hi <- Typed(Seq("add", "stats_parsed", "maxValues", physical), f.dataType)) yield (lo, hi)
      }
    def orUnknown(bound: Typed, p: Option[Pushed]): Option[Pushed] = p.map(both(FilterApi.or)(_, bound.isNull(true)))
    def cmp(a: Attribute, op: String, v: Any): Option[Pushed] = if (v == null) None else bounds(a).flatMap { case (lo, hi) =>
      op match {
        case "<" | "<=" => orUnknown(lo, lo.cmp(op, v))
        case ">" | ">=" => orUnknown(hi, hi.cmp(op, v))
        case _ => for (l <- lo.cmp("<=", v); h <- hi.cmp(">=", v)) yield
          both(FilterApi.or)(both(FilterApi.and)(l, h), both(FilterApi.or)(lo.isNull(true), hi.isNull(true)))
      }
    }
    def translate(e: Expression): Option[Pushed] = e match {
      case And(l, r) => (translate(l) ++ translate(r)).reduceOption(both(FilterApi.and))
      case Or(l, r) => for (a <- translate(l); b <- translate(r)) yield both(FilterApi.or)(a, b)
      case EqualTo(a: Attribute, Literal(v, _)) => cmp(a, "=", v)
      case EqualTo(Literal(v, _), a: Attribute) => cmp(a, "=", v)
      case EqualNullSafe(a: Attribute, Literal(v, _)) => cmp(a, "=", v)
      case EqualNullSafe(Literal(v, _), a: Attribute) => cmp(a, "=", v)
      case In(a: Attribute, values) if values.size <= MaxInValues && values.forall(_.isInstanceOf[Literal]) =>
        values.map(v => cmp(a, "=", v.asInstanceOf[Literal].value)).reduceOption((x, y) =>
          for (p <- x; q <- y) yield both(FilterApi.or)(p, q)).flatten
      case InSet(a: Attribute, set) if set.size <= MaxInValues =>
        set.toSeq.map(v => cmp(a, "=", v)).reduceOption((x, y) => for (p <- x; q <- y) yield both(FilterApi.or)(p, q)).flatten
      case LessThan(a: Attribute, Literal(v, _)) => cmp(a, "<", v)
      case LessThanOrEqual(a: Attribute, Literal(v, _)) => cmp(a, "<=", v)
      case GreaterThan(a: Attribute, Literal(v, _)) => cmp(a, ">", v)
      case GreaterThanOrEqual(a: Attribute, Literal(v, _)) => cmp(a, ">=", v)
      case LessThan(Literal(v, _), a: Attribute) => cmp(a, ">", v)
      case LessThanOrEqual(Literal(v, _), a: Attribute) => cmp(a, ">=", v)
      case GreaterThan(Literal(v, _), a: Attribute) => cmp(a, "<", v)
      case GreaterThanOrEqual(Literal(v, _), a: Attribute) => cmp(a, "<=", v)
      case _ => None
    }
    translate(e)
  }

  /** The types whose statistics bound their values exactly (strings' may be truncated, timestamps' rounded). */
  private def Bounded(t: DataType): Boolean = t match {
    case IntegerType | LongType | ShortType | ByteType | DateType => true
    case _ => false
  }

  private def partitionFilters(filters: Seq[Expression], metadata: Metadata): Seq[Pushed] = {
    val mapping = ColumnMapping.of(metadata)
    val columns: Map[String, (Seq[String], DataType)] = metadata.partitionSchema.fields.map { f =>
      f.name.toLowerCase -> (Seq("add", "partitionValues_parsed", mapping.partitionKey(f.name)), f.dataType)
    }.toMap
    def column(a: Attribute): Option[Typed] = columns.get(a.name.toLowerCase)
      .filter { case (path, _) => !path.last.contains(".") }.flatMap { case (path, t) => Typed(path, t) }

    def translate(e: Expression): Option[Pushed] = e match {
      case And(l, r) => (translate(l) ++ translate(r)).reduceOption(both(FilterApi.and))
      case Or(l, r) => for (a <- translate(l); b <- translate(r)) yield both(FilterApi.or)(a, b)
      case EqualTo(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.eq(v))
      case EqualTo(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.eq(v))
      case EqualNullSafe(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.eq(v))
      case EqualNullSafe(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.eq(v))
      case In(a: Attribute, values) if values.size <= MaxInValues && values.forall(v => v.isInstanceOf[Literal] && v.asInstanceOf[Literal].value != null) =>
        values.map(v => column(a).flatMap(_.eq(v.asInstanceOf[Literal].value))).reduceOption((x, y) =>
          for (p <- x; q <- y) yield both(FilterApi.or)(p, q)).flatten
      case InSet(a: Attribute, set) if set.size <= MaxInValues && !set.contains(null) =>
        set.toSeq.map(v => column(a).flatMap(_.eq(v))).reduceOption((x, y) => for (p <- x; q <- y) yield both(FilterApi.or)(p, q)).flatten
      case LessThan(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.cmp("<", v))
      case LessThanOrEqual(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.cmp("<=", v))
      case GreaterThan(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.cmp(">", v))
      case GreaterThanOrEqual(a: Attribute, Literal(v, _)) if v != null => column(a).flatMap(_.cmp(">=", v))
      case LessThan(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.cmp(">", v))
      case LessThanOrEqual(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.cmp(">=", v))
      case GreaterThan(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.cmp("<", v))
      case GreaterThanOrEqual(Literal(v, _), a: Attribute) if v != null => column(a).flatMap(_.cmp("<=", v))
      case IsNull(a: Attribute) => column(a).map(_.isNull(true))
      case IsNotNull(a: Attribute) => column(a).map(_.isNull(false))
      case _ => None
    }
    filters.flatMap(translate)
  }

  private def both(op: (FilterPredicate, FilterPredicate) => FilterPredicate)(a: Pushed, b: Pushed): Pushed =
    (op(a._1, b._1), a._2 ++ b._2)

  /** A partition column as its checkpoint column, of one of the types pushed down. */
  private sealed trait Typed {
    def path: Seq[String]
    def eq(v: Any): Option[Pushed]
    def cmp(op: String, v: Any): Option[Pushed]
    def isNull(yes: Boolean): Pushed
  }

  private object Typed {
    def apply(path: Seq[String], t: DataType): Option[Typed] = {
      val name = path.mkString(".")
      t match {
        case IntegerType | DateType | ShortType | ByteType =>
          Some(new Ordered[java.lang.Integer, Operators.IntColumn](path, FilterApi.intColumn(name), PrimitiveTypeName.INT32, {
            case i: Int => Some(i)
            case s: Short => Some(s.toInt)
            case b: Byte => Some(b.toInt)
            case _ => None
          }))
        case LongType => Some(new Ordered[java.lang.Long, Operators.LongColumn](path, FilterApi.longColumn(name),
          PrimitiveTypeName.INT64, { case l: Long => Some(l); case _ => None }))
        case StringType => Some(new Ordered[Binary, Operators.BinaryColumn](path, FilterApi.binaryColumn(name),
          PrimitiveTypeName.BINARY, { case s: UTF8String => Some(Binary.fromString(s.toString)); case _ => None }))
        case BooleanType => Some(new BooleanTyped(path))
        case _ => None
      }
    }
  }

  /** A column whose values are ordered: `value` turns a Catalyst literal's value into the column's (None: another type). */
  private final class Ordered[T <: Comparable[T], C <: Operators.Column[T] with Operators.SupportsLtGt](val path: Seq[String],
      c: C, physical: PrimitiveTypeName, value: Any => Option[T]) extends Typed {
    private def typed(p: FilterPredicate): Pushed = (p, Map(path -> physical))
    def eq(v: Any): Option[Pushed] = value(v).map(x => typed(FilterApi.eq[T, C](c, x)))
    def cmp(op: String, v: Any): Option[Pushed] = value(v).map(x => typed(op match {
      case "<" => FilterApi.lt[T, C](c, x)
      case "<=" => FilterApi.ltEq[T, C](c, x)
      case ">" => FilterApi.gt[T, C](c, x)
      case _ => FilterApi.gtEq[T, C](c, x)
    }))
    def isNull(yes: Boolean): Pushed = typed(if (yes) FilterApi.eq[T, C](c, null.asInstanceOf[T]) else FilterApi.notEq[T, C](c, null.asInstanceOf[T]))
  }

  private final class BooleanTyped(val path: Seq[String]) extends Typed {
    private val c: Operators.BooleanColumn = FilterApi.booleanColumn(path.mkString("."))
    private def typed(p: FilterPredicate): Pushed = (p, Map(path -> PrimitiveTypeName.BOOLEAN))
    def eq(v: Any): Option[Pushed] = v match {
      case b: Boolean => Some(typed(FilterApi.eq[java.lang.Boolean, Operators.BooleanColumn](c, b)))
      case _ => None
    }
    def cmp(op: String, v: Any): Option[Pushed] = None
    def isNull(yes: Boolean): Pushed = typed(if (yes) FilterApi.eq[java.lang.Boolean, Operators.BooleanColumn](c, null)
      else FilterApi.notEq[java.lang.Boolean, Operators.BooleanColumn](c, null))
  }
}
