package io.silt.read

import io.silt.actions.{Format, Metadata}
import io.silt.features.GeneratedColumnsFeature
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class GeneratedPartitionFiltersSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val tz = "UTC"
  private val generated = Seq(
    "d" -> (DateType, "CAST(ts AS DATE)"), "y" -> (IntegerType, "year(ts)"), "m" -> (IntegerType, "month(ts)"),
    "dd" -> (IntegerType, "day(ts)"), "h" -> (IntegerType, "hour(ts)"), "f" -> (StringType, "date_format(ts, 'yyyy-MM')"),
    "t" -> (TimestampType, "date_trunc('HOUR', ts)"), "fm" -> (StringType, "date_format(ts, 'MM')"))
  private val schema = StructType(StructField("ts", TimestampType) +: generated.map { case (n, (t, sql)) =>
    StructField(n, t, metadata = new MetadataBuilder().putString(GeneratedColumnsFeature.Key, sql).build())
  })
  private val metadata = Metadata("id", None, None, Format(), schema.json, generated.map(_._1), Map.empty, None)
  private val ts = AttributeReference("ts", TimestampType)()
  private def lit(micros: Long) = Literal(micros, TimestampType)

  /** Each partition's value for a row whose `ts` is `micros` (what a write computes). */
  private def partitionValues(micros: Long): Map[String, Any] = {
    val v = lit(micros)
    val date = Cast(v, DateType, Some(tz))
    Map("d" -> date.eval(), "y" -> Year(date).eval(), "m" -> Month(date).eval(), "dd" -> DayOfMonth(date).eval(),
      "h" -> Hour(v, Some(tz)).eval(), "f" -> DateFormatClass(v, Literal("yyyy-MM"), Some(tz)).eval(),
      "t" -> TruncTimestamp(Literal("HOUR"), v, Some(tz)).eval(), "fm" -> DateFormatClass(v, Literal("MM"), Some(tz)).eval())
  }

  private def holds(filter: Expression, values: Map[String, Any]): Boolean = filter.transform {
    case a: AttributeReference => Literal(values(a.name), a.dataType)
  }.eval() == true

  private val predicates: Seq[(String, Literal => Expression)] = Seq(
    ">" -> (v => GreaterThan(ts, v)), ">=" -> (v => GreaterThanOrEqual(ts, v)), "<" -> (v => LessThan(ts, v)),
    "<=" -> (v => LessThanOrEqual(ts, v)), "=" -> (v => EqualTo(ts, v)), "v <" -> (v => LessThan(v, ts)),
    "v >=" -> (v => GreaterThanOrEqual(v, ts)))
  // 2000-01-01 to 2030-01-01, in microseconds; near values too, so that the parts often agree
  private val instant = Gen.choose(946684800L, 1893456000L).map(_ * 1000000L)
  private val pair = for { x <- instant; d <- Gen.oneOf(Gen.choose(-7200L, 7200L), Gen.choose(-5000000L, 5000000L)) } yield
    (x, x + d * 1000000L)

  test("a derived filter never drops the partition of a row the query's filter keeps") {
    forAll(pair, Gen.oneOf(predicates)) { case ((x, v), (name, p)) =>
      val derived = GeneratedPartitionFilters.derive(Seq(p(lit(v))), metadata, tz)
      val values = partitionValues(x)
      if (holds(p(lit(v)), Map("ts" -> x))) derived.foreach(f => assert(holds(f, values), s"ts $name: $f"))
    }
  }

  test("IN and IS NULL carry over; a row with a null ts is in the null partitions only") {
    forAll(instant, instant, instant) { (x, a, b) =>
      val derived = GeneratedPartitionFilters.derive(Seq(In(ts, Seq(lit(a), lit(b)))), metadata, tz)
      assert(derived.size == generated.size)
      if (x == a || x == b) derived.foreach(f => assert(holds(f, partitionValues(x)), f))
    }
    val nulls = GeneratedPartitionFilters.derive(Seq(IsNull(ts)), metadata, tz)
    assert(nulls.size == generated.size)
    nulls.foreach(f => assert(holds(f, generated.map(_._1 -> null).toMap) && !holds(f, partitionValues(0L))))
  }

  test("what is derived: comparisons for functions that never decrease, the year/month/day/hour parts together") {
    val v = lit(1718452800000000L) // 2024-06-15 12:00:00 UTC
    def derivedOn(p: Expression) = GeneratedPartitionFilters.derive(Seq(p), metadata, tz)
      .map(_.references.map(_.name).toSeq.sorted.mkString(","))
    // d, y, f and t on their own; month, day and hour only with the year before them; not the month format
    assert(derivedOn(GreaterThan(ts, v)).sorted == Seq("d", "dd,h,m,y", "f", "t", "y"))
    assert(derivedOn(EqualTo(ts, v)).sorted == Seq("d", "dd", "f", "fm", "h", "m", "t", "y"))
    // 2024-06-16 00:00 is kept by ts > v; 2024-06-14 23:00 is dropped by the date, the parts, the format and the hour
    val later = partitionValues(1718496000000000L)
    val earlier = partitionValues(1718406000000000L)
    val lower = GeneratedPartitionFilters.derive(Seq(GreaterThan(ts, v)), metadata, tz)
    assert(lower.forall(holds(_, later)))
    assert(lower.filterNot(holds(_, earlier)).map(_.references.map(_.name).toSeq.sorted.mkString(",")).sorted ==
      Seq("d", "dd,h,m,y", "t"))
  }
}
