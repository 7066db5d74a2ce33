package io.silt.log

import io.silt.actions.{Format, Metadata}
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import io.silt.actions.RowLevelFilter
import org.apache.spark.sql.catalyst.InternalRow
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckDrivenPropertyChecks

class CheckpointPushdownSpec extends AnyFunSuite with ScalaCheckDrivenPropertyChecks {
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

  test("tested on each checkpoint row, the filter keeps every file that may hold a matching row, and rules out the others by atom") {
    val id = AttributeReference("id", LongType)()
    val bounds = StructType(Seq(StructField("id", LongType)))
    val rowSchema = StructType(Seq(StructField("add", StructType(Seq(
      StructField("partitionValues_parsed", StructType(Seq(StructField("day", IntegerType)))),
      StructField("stats_parsed", StructType(Seq(StructField("minValues", bounds), StructField("maxValues", bounds)))))))))
    def row(day: Option[Int], lo: Option[Long], hi: Option[Long]): InternalRow = {
      def one(v: Option[Any]) = InternalRow(v.orNull)
      InternalRow(InternalRow(one(day), InternalRow(one(lo), one(hi))))
    }
    val small = Gen.choose(0, 9)
    val atom: Gen[Expression] = Gen.oneOf(
      Gen.zip(Gen.oneOf[(Expression, Expression) => Expression](EqualTo(_, _), LessThan(_, _), LessThanOrEqual(_, _),
        GreaterThan(_, _), GreaterThanOrEqual(_, _), EqualNullSafe(_, _)), Gen.oneOf[Expression](id, day), small, Gen.oneOf(true, false))
        .map { case (op, a, v, flipped) =>
          val lit = if (a == id) Literal(v.toLong) else Literal(v)
          if (flipped) op(lit, a) else op(a, lit)
        },
      Gen.listOfN(3, small).map(vs => In(id, vs.map(v => Literal(v.toLong)))),
      Gen.const(IsNull(day)), Gen.const(IsNotNull(day)))
    def expr(depth: Int): Gen[Expression] = if (depth == 0) atom else Gen.frequency(2 -> atom,
      1 -> Gen.zip(expr(depth - 1), expr(depth - 1)).map { case (l, r) => And(l, r) },
      1 -> Gen.zip(expr(depth - 1), expr(depth - 1)).map { case (l, r) => Or(l, r) })
    val files = Gen.zip(Gen.option(small), Gen.option(small), Gen.option(small)).map {
      case (d, lo, hi) => (d, lo.map(_.toLong), hi.map(x => math.max(x.toLong, lo.getOrElse(0).toLong)))
    }
    forAll(expr(2), files, minSuccessful(3000)) { case (e, (d, lo, hi)) =>
      val partition = Seq(e).filter(_.references.forall(_ == day))
      val data = Seq(e).filter(_.references.forall(_ == id))
      CheckpointPushdown(partition, data, meta()).foreach { f =>
        val test = RowLevelFilter.compile(f.predicate, rowSchema).get
        // the ids a file with these bounds may hold (any, where a bound is unknown)
        val ids = (lo.getOrElse(-1L) to hi.getOrElse(10L)).map(x => x: Any)
        val candidates = ids.map(x => InternalRow(x, d.orNull))
        val bound = BindReferences.bindReference(e, Seq(id, day))
        val mayMatch = candidates.exists(r => bound.eval(r) == true)
        val kept = test(row(d, lo, hi))
        assert(!mayMatch || kept, s"$e ruled out a file (day $d, ids $lo..$hi) holding a match")
        // an atom is exact, but for a file with one bound unknown (kept, whatever the other says)
        if (!e.isInstanceOf[And] && !e.isInstanceOf[Or] && (partition.nonEmpty || lo.isDefined == hi.isDefined)) {
          assert(kept == mayMatch, s"$e on day $d, ids $lo..$hi")
        }
      }
    }
  }
}
