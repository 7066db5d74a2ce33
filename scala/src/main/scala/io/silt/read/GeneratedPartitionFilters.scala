package io.silt.read

import java.util.Locale

import scala.util.control.NonFatal

import io.silt.actions.Metadata
import io.silt.features.GeneratedColumnsFeature
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types.{DataType, DateType, IntegerType, StringType, TimestampType}

/**
 * Partition filters implied by filters on the column a generated partition column comes from, as
 * Delta derives them: with `d GENERATED ALWAYS AS (CAST(ts AS DATE))`, `ts > X` reads only the
 * partitions with `d >= CAST(X AS DATE)`.
 *
 *  - A generation expression that never decreases as its input grows gives comparisons: the column
 *    itself, `CAST(c AS DATE)`, `year(c)`, `date_format(c, f)` with a zero-padded year-first format
 *    (`yyyy-MM`, `yyyy-MM-dd`, `yyyy-MM-dd-HH`, ...), `date_trunc(unit, c)`, `trunc(c, unit)`,
 *    `substring(c, 1, n)`.
 *  - Any generation expression gives `=`, `IN` and `IS NULL`.
 *  - Partition columns `year(c)`, `month(c)`, `day(c)` (and `hour(c)`), each the next finer part
 *    of one column, are compared together, in that order.
 *
 * A partition whose value is null is kept by every comparison. Derived filters only ever keep
 * more partitions than the query needs (the query's own filter still applies to the rows).
 */
object GeneratedPartitionFilters {
  /**
   * A generated partition column: its attribute, the column it comes from, its function, whether
   * that never decreases, and the date part it is (`year`, `month`, ...), if one.
   */
  private final case class Generated(partition: AttributeReference, source: String, f: Expression => Expression,
      monotonic: Boolean, part: Option[String])

  /** The date parts a partition column may be, coarsest first. */
  private val Parts = Seq("year", "month", "day", "hour")
  private val PartAliases = Map("year" -> "year", "month" -> "month", "day" -> "day", "dayofmonth" -> "day", "hour" -> "hour")
  private val YearFirstFormats = Set("yyyy", "yyyy-MM", "yyyy-MM-dd", "yyyy-MM-dd-HH", "yyyyMM", "yyyyMMdd", "yyyyMMddHH")

  def derive(dataFilters: Seq[Expression], metadata: Metadata, timeZone: String): Seq[Expression] = {
    val partitions = metadata.partitionColumns.map(_.toLowerCase(Locale.ROOT)).toSet
    val parsed = metadata.schema.fields.toSeq.filter(f => partitions(f.name.toLowerCase(Locale.ROOT))).flatMap { f =>
      GeneratedColumnsFeature.expressionOf(f).flatMap(parse).map(AttributeReference(f.name, f.dataType)() -> _)
    }
    if (parsed.isEmpty) return Nil
    val generated = parsed.flatMap { case (a, e) => function(e, timeZone).map(_(a)) }
    val chains = partChains(generated)
    dataFilters.flatMap(splitConjuncts).flatMap(e => generated.flatMap(g => derived(e, g)) ++ chains.flatMap(c => chained(e, c)))
  }

  private def parse(sql: String): Option[Expression] =
    try Some(CatalystSqlParser.parseExpression(sql)) catch { case NonFatal(_) => None }

  private def splitConjuncts(e: Expression): Seq[Expression] = e match {
    case And(a, b) => splitConjuncts(a) ++ splitConjuncts(b)
    case other => Seq(other)
  }

  private def call(u: UnresolvedFunction): Option[(String, Seq[Expression])] =
    if (u.isDistinct || u.nameParts.size != 1) None else Some(u.nameParts.head.toLowerCase(Locale.ROOT) -> u.arguments)

  private def stringLiteral(e: Expression): Option[String] = e match {
    case Literal(v, StringType) if v != null => Some(v.toString)
    case _ => None
  }

  /** The generated partition column a generation expression makes of attribute `a`, if Silt derives filters for it. */
  private def function(e: Expression, tz: String): Option[AttributeReference => Generated] = {
    def of(c: String, f: Expression => Expression, monotonic: Boolean, part: Option[String] = None) =
      Some((a: AttributeReference) => Generated(a, c, f, monotonic, part))
    e match {
      case UnresolvedAttribute(Seq(c)) => of(c, identity[Expression], monotonic = true)
      case Cast(UnresolvedAttribute(Seq(c)), DateType, _, _) => of(c, v => Cast(v, DateType, Some(tz)), monotonic = true)
      case u: UnresolvedFunction => call(u).flatMap {
        case (name, Seq(UnresolvedAttribute(Seq(c)))) if PartAliases.contains(name) =>
          // year never decreases; month, day and hour only together with the coarser parts
          of(c, partFunction(PartAliases(name), tz), monotonic = PartAliases(name) == "year", Some(PartAliases(name)))
        case ("date_format", Seq(UnresolvedAttribute(Seq(c)), fmt)) => stringLiteral(fmt).flatMap { f =>
          of(c, v => DateFormatClass(Cast(v, TimestampType, Some(tz)), Literal(f), Some(tz)), YearFirstFormats(f))
        }
        case ("date_trunc", Seq(unit, UnresolvedAttribute(Seq(c)))) if stringLiteral(unit).isDefined =>
          of(c, v => TruncTimestamp(unit, Cast(v, TimestampType, Some(tz)), Some(tz)), monotonic = true)
        case ("trunc", Seq(UnresolvedAttribute(Seq(c)), unit)) if stringLiteral(unit).isDefined =>
          of(c, v => TruncDate(Cast(v, DateType, Some(tz)), unit), monotonic = true)
        case ("substring" | "substr", Seq(UnresolvedAttribute(Seq(c)), Literal(1, IntegerType), len @ Literal(_, IntegerType))) =>
          of(c, v => Substring(Cast(v, StringType, Some(tz)), Literal(1), len), monotonic = true)
        case _ => None
      }
      case _ => None
    }
  }

  private def partFunction(part: String, tz: String): Expression => Expression = part match {
    case "year" => v => Year(Cast(v, DateType, Some(tz)))
    case "month" => v => Month(Cast(v, DateType, Some(tz)))
    case "day" => v => DayOfMonth(Cast(v, DateType, Some(tz)))
    case "hour" => v => Hour(Cast(v, TimestampType, Some(tz)), Some(tz))
  }

  /** Partition columns year(c), month(c)[, day(c)[, hour(c)]] of one column: (source, partitions coarsest first). */
  private def partChains(generated: Seq[Generated]): Seq[(String, Seq[Generated])] =
    generated.filter(_.part.isDefined).groupBy(_.source.toLowerCase(Locale.ROOT)).toSeq.flatMap { case (source, gs) =>
      val byPart = gs.map(g => g.part.get -> g).toMap
      val chain = Parts.takeWhile(byPart.contains).map(byPart)
      if (chain.size >= 2) Some(source -> chain) else None
    }

  private def on(a: Expression, source: String): Boolean = a match {
    case ar: AttributeReference => ar.name.equalsIgnoreCase(source)
    case _ => false
  }

  /** `f(v)` as a literal of the partition's type; None when it cannot be computed or is null. */
  private def at(g: Generated, v: Literal): Option[Literal] =
    try Option(Literal.create(g.f(v).eval(), g.partition.dataType)).filterNot(_.value == null)
    catch { case NonFatal(_) => None }

  private sealed trait Bound
  private case object Lower extends Bound
  private case object Upper extends Bound
  private case object Exact extends Bound

  /** The bound a comparison of the source column with a literal puts on the column. */
  private def bound(e: Expression, source: String): Option[(Bound, Literal)] = e match {
    case GreaterThan(a, v: Literal) if on(a, source) => Some(Lower -> v)
    case GreaterThanOrEqual(a, v: Literal) if on(a, source) => Some(Lower -> v)
    case LessThan(a, v: Literal) if on(a, source) => Some(Upper -> v)
    case LessThanOrEqual(a, v: Literal) if on(a, source) => Some(Upper -> v)
    case EqualTo(a, v: Literal) if on(a, source) => Some(Exact -> v)
    case GreaterThan(v: Literal, a) if on(a, source) => Some(Upper -> v)
    case GreaterThanOrEqual(v: Literal, a) if on(a, source) => Some(Upper -> v)
    case LessThan(v: Literal, a) if on(a, source) => Some(Lower -> v)
    case LessThanOrEqual(v: Literal, a) if on(a, source) => Some(Lower -> v)
    case EqualTo(v: Literal, a) if on(a, source) => Some(Exact -> v)
    case _ => None
  }

  private def keepingNulls(c: Expression, partition: AttributeReference): Expression = Or(c, IsNull(partition))

  private def derived(e: Expression, g: Generated): Option[Expression] = e match {
    case IsNull(a) if on(a, g.source) => Some(IsNull(g.partition))
    case In(a, values) if on(a, g.source) && values.forall(_.isInstanceOf[Literal]) =>
      val mapped = values.map(v => at(g, v.asInstanceOf[Literal]))
      // A value whose image cannot be computed could be in any partition: nothing is derived.
      if (mapped.forall(_.isDefined)) Some(keepingNulls(In(g.partition, mapped.flatten.distinct), g.partition)) else None
    case _ => bound(e, g.source).flatMap {
      case (Exact, v) => at(g, v).map(p => keepingNulls(EqualTo(g.partition, p), g.partition))
      case (Lower, v) if g.monotonic => at(g, v).map(p => keepingNulls(GreaterThanOrEqual(g.partition, p), g.partition))
      case (Upper, v) if g.monotonic => at(g, v).map(p => keepingNulls(LessThanOrEqual(g.partition, p), g.partition))
      case _ => None
    }
  }

  /** A comparison of the source column as one of its parts' partitions compared in order (year, then month, ...). */
  private def chained(e: Expression, chain: (String, Seq[Generated])): Option[Expression] = {
    val (source, parts) = chain
    bound(e, source).filter(_._1 != Exact).flatMap { case (b, v) =>
      val values = parts.map(at(_, v))
      if (values.exists(_.isEmpty)) None else {
        val pairs = parts.map(_.partition).zip(values.flatten)
        // (the chain has two parts or more; the last compares inclusively)
        def lex(ps: Seq[(AttributeReference, Literal)]): Expression = {
          val (a, p) = ps.head
          if (ps.size == 1) { if (b == Lower) GreaterThanOrEqual(a, p) else LessThanOrEqual(a, p) }
          else Or(if (b == Lower) GreaterThan(a, p) else LessThan(a, p), And(EqualTo(a, p), lex(ps.tail)))
        }
        Some(keepingNulls(lex(pairs), parts.head.partition))
      }
    }
  }
}
