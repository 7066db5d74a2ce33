package io.silt.log

import io.silt.actions.{Format, Metadata}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class CheckpointPushdownSpec extends AnyFunSuite {
  private val schema = StructType(Seq(StructField("id", LongType), StructField("day", IntegerType),
    StructField("city", StringType), StructField("at", TimestampType), StructField("d", DateType)))
  private def meta(config: Map[String, String] = Map.empty) =
    Metadata("t", None, None, Format(), schema.json, Seq("day", "city", "at", "d"), config, None)
  private val day = AttributeReference("day", IntegerType)()
  private val city = AttributeReference("city", StringType)()
  private val at = AttributeReference("at", TimestampType)()
  private val d = AttributeReference("d", DateType)()
  private def pushed(filters: Expression*): Option[String] = CheckpointPushdown(filters, meta()).map(_.predicate.toString)

  test("comparisons of partition columns with literals become filters on the typed partition values") {
    assert(pushed(EqualTo(day, Literal(3))).contains("eq(add.partitionValues_parsed.day, 3)"))
    assert(pushed(GreaterThan(Literal(3), day)).contains("lt(add.partitionValues_parsed.day, 3)"))
    assert(pushed(EqualTo(city, Literal("x"))).exists(_.startsWith("eq(add.partitionValues_parsed.city, Binary{")))
    assert(pushed(EqualTo(d, Literal.create(java.time.LocalDate.of(1970, 1, 3), DateType))).contains(
      "eq(add.partitionValues_parsed.d, 2)"))
    assert(pushed(In(day, Seq(Literal(1), Literal(2)))).contains(
      "or(eq(add.partitionValues_parsed.day, 1), eq(add.partitionValues_parsed.day, 2))"))
    assert(pushed(IsNull(day)).contains("eq(add.partitionValues_parsed.day, null)"))
  }

  test("what cannot be expressed is left out of a conjunction, and makes a disjunction unpushable") {
    val timestamp = EqualTo(at, Literal.create(0L, TimestampType))
    assert(pushed(timestamp).isEmpty)
    assert(pushed(And(timestamp, EqualTo(day, Literal(3)))).contains("eq(add.partitionValues_parsed.day, 3)"))
    assert(pushed(timestamp, EqualTo(day, Literal(3))).contains("eq(add.partitionValues_parsed.day, 3)"))
    assert(pushed(Or(timestamp, EqualTo(day, Literal(3)))).isEmpty)
    assert(pushed(Not(EqualTo(day, Literal(3)))).isEmpty)
    assert(pushed(EqualTo(day, Literal(null, IntegerType))).isEmpty)
  }

  test("comparisons of int, long and date data columns become null-safe bounds on the files' statistics") {
    val id = AttributeReference("id", LongType)()
    val min = "add.stats_parsed.minValues.id"
    val max = "add.stats_parsed.maxValues.id"
    def data(e: Expression) = CheckpointPushdown(Nil, Seq(e), meta()).map(_.predicate.toString)
    assert(data(EqualTo(id, Literal(5L))).contains(
      s"or(and(lteq($min, 5), gteq($max, 5)), or(eq($min, null), eq($max, null)))"))
    assert(data(LessThan(id, Literal(5L))).contains(s"or(lt($min, 5), eq($min, null))"))
    assert(data(GreaterThanOrEqual(Literal(5L), id)).contains(s"or(lteq($min, 5), eq($min, null))"))
    assert(data(GreaterThan(id, Literal(5L))).contains(s"or(gt($max, 5), eq($max, null))"))
    // partition columns are not data columns; truncated strings and rounded timestamps are not bounds
    assert(data(EqualTo(day, Literal(3))).isEmpty)
    val schemaWithName = StructType(schema.fields :+ StructField("name", StringType))
    val m = Metadata("t", None, None, Format(), schemaWithName.json, Seq("day"), Map.empty, None)
    assert(CheckpointPushdown(Nil, Seq(EqualTo(AttributeReference("name", StringType)(), Literal("x"))), m).isEmpty)
    assert(CheckpointPushdown(Nil, Seq(EqualTo(id, Literal(null, LongType))), m).isEmpty)
  }

  test("the filter names each column with the physical type a file must hold it in") {
    val f = CheckpointPushdown(Seq(EqualTo(day, Literal(3)), EqualTo(city, Literal("x"))), meta()).get
    assert(f.columns.keySet == Set(Seq("add", "partitionValues_parsed", "day"), Seq("add", "partitionValues_parsed", "city")))
  }
}
