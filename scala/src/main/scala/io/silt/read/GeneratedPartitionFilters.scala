package io.silt.read

import scala.util.control.NonFatal

import io.silt.actions.Metadata
import io.silt.features.GeneratedColumnsFeature
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.parser.CatalystSqlParser
import org.apache.spark.sql.types.{DataType, DateType}

/**
 * Partition filters implied by filters on the column a generated partition column comes from, as
 * Delta derives them: with `d GENERATED ALWAYS AS (CAST(ts AS DATE))`, `ts > X` reads only the
 * partitions with `d >= CAST(X AS DATE)`. Only expressions that never decrease as their input
 * grows qualify (`CAST(c AS DATE)`, `year(c)`, the column itself); a partition whose value is
 * null is always kept.
 */
object GeneratedPartitionFilters {
  /** A generated partition column: its name and type, the column it comes from, and its function. */
  private final case class Generated(name: String, dataType: DataType, source: String, f: Expression => Expression)

  def derive(dataFilters: Seq[Expression], metadata: Metadata, timeZone: String): Seq[Expression] = {
    val partitions = metadata.partitionColumns.map(_.toLowerCase).toSet
    val generated = metadata.schema.fields.toSeq.filter(f => partitions(f.name.toLowerCase)).flatMap { f =>
      GeneratedColumnsFeature.expressionOf(f).flatMap(sql => monotonic(sql, timeZone)).map { case (source, fn) =>
        Generated(f.name, f.dataType, source, fn)
      }
    }
    if (generated.isEmpty) return Nil
    dataFilters.flatMap(splitConjuncts).flatMap { e =>
      generated.flatMap(g => derived(e, g))
    }
  }

  private def splitConjuncts(e: Expression): Seq[Expression] = e match {
    case And(a, b) => splitConjuncts(a) ++ splitConjuncts(b)
    case other => Seq(other)
  }

  /** The source column and function of a generation expression that never decreases, if it is one. */
  private def monotonic(sql: String, timeZone: String): Option[(String, Expression => Expression)] =
    try CatalystSqlParser.parseExpression(sql) match {
      case UnresolvedAttribute(Seq(c)) => Some(c -> identity[Expression])
      case Cast(UnresolvedAttribute(Seq(c)), DateType, _, _) => Some(c -> (v => Cast(v, DateType, Some(timeZone))))
      case u: UnresolvedFunction if u.nameParts.map(_.toLowerCase) == Seq("year") && !u.isDistinct => u.arguments match {
        case Seq(UnresolvedAttribute(Seq(c))) => Some(c -> (v => Year(Cast(v, DateType, Some(timeZone)))))
        case _ => None
      }
      case _ => None
    } catch { case NonFatal(_) => None }

  private def derived(e: Expression, g: Generated): Option[Expression] = {
    def on(a: Expression) = a match {
      case ar: AttributeReference => ar.name.equalsIgnoreCase(g.source)
      case _ => false
    }
    val partition = AttributeReference(g.name, g.dataType)()
    def at(v: Literal): Option[Literal] =
      try Option(Literal.create(g.f(v).eval(), g.dataType)).filterNot(_.value == null) catch { case NonFatal(_) => None }
    val comparison: Option[Expression] = e match {
      case GreaterThan(a, v: Literal) if on(a) => at(v).map(GreaterThanOrEqual(partition, _))
      case GreaterThanOrEqual(a, v: Literal) if on(a) => at(v).map(GreaterThanOrEqual(partition, _))
      case LessThan(a, v: Literal) if on(a) => at(v).map(LessThanOrEqual(partition, _))
      case LessThanOrEqual(a, v: Literal) if on(a) => at(v).map(LessThanOrEqual(partition, _))
      case EqualTo(a, v: Literal) if on(a) => at(v).map(EqualTo(partition, _))
      case GreaterThan(v: Literal, a) if on(a) => at(v).map(LessThanOrEqual(partition, _))
      case GreaterThanOrEqual(v: Literal, a) if on(a) => at(v).map(LessThanOrEqual(partition, _))
      case LessThan(v: Literal, a) if on(a) => at(v).map(GreaterThanOrEqual(partition, _))
      case LessThanOrEqual(v: Literal, a) if on(a) => at(v).map(GreaterThanOrEqual(partition, _))
      case EqualTo(v: Literal, a) if on(a) => at(v).map(EqualTo(partition, _))
      case _ => None
    }
    comparison.map(c => Or(c, IsNull(c)))
  }
}
