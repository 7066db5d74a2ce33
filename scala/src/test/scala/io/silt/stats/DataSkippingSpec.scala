package io.silt.stats

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class DataSkippingSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val schema = StructType(Seq(
    StructField("a", IntegerType),
    StructField("s", StringType),
    StructField("n", StructType(Seq(StructField("x", LongType))))))
  private val a = AttributeReference("a", IntegerType)()
  private val s = AttributeReference("s", StringType)()
  private val n = AttributeReference("n", schema("n").dataType)()
  private val nx = GetStructField(n, 0, Some("x"))
  private val columns = StatsColumn.indexed(schema, 32, None).toIndexedSeq

  private def rowOf(av: Option[Int], sv: Option[String], xv: Option[Option[Long]]): InternalRow =
    InternalRow(av.map(Int.box).orNull, sv.map(UTF8String.fromString).orNull,
      xv.map(inner => InternalRow(inner.map(Long.box).orNull)).orNull)

  private def statsOf(rows: Seq[InternalRow]): FileStats = {
    val acc = new FileStatsAccumulator(columns)
    rows.foreach(acc.update)
    FileStats.parse(Some(acc.toJson))
  }

  private val rowGen = for {
    av <- Gen.option(Gen.choose(-50, 50))
    sv <- Gen.option(Gen.oneOf(Gen.alphaStr.map(_.take(40)), Gen.const("x" * 40 + "y"), Gen.const("é")))
    xv <- Gen.option(Gen.option(Gen.choose(-5L, 5L)))
  } yield rowOf(av, sv, xv)

  private val litInt = Gen.choose(-60, 60).map(Literal(_))
  private val atom: Gen[Expression] = Gen.oneOf(
    litInt.map(EqualTo(a, _)), litInt.map(LessThan(a, _)), litInt.map(LessThanOrEqual(a, _)),
    litInt.map(GreaterThan(a, _)), litInt.map(GreaterThanOrEqual(_, a)), litInt.map(GreaterThan(_, a)),
    Gen.listOfN(3, Gen.choose(-60, 60)).map(vs => In(a, vs.map(Literal(_)))),
    Gen.const(IsNull(a)), Gen.const(IsNotNull(a)), Gen.const(IsNull(nx)), Gen.const(IsNotNull(s)),
    Gen.alphaStr.map(v => EqualTo(s, Literal(v.take(3)))), Gen.alphaStr.map(v => LessThan(s, Literal(v.take(2)))),
    Gen.alphaStr.map(v => StartsWith(s, Literal(v.take(2)))),
    Gen.choose(-6L, 6L).map(v => GreaterThan(nx, Literal(v))),
    Gen.choose(-60L, 60L).map(v => EqualTo(Cast(a, LongType), Literal(v))))
  private def pred(depth: Int): Gen[Expression] =
    if (depth == 0) atom
    else Gen.frequency(3 -> atom,
      1 -> Gen.zip(pred(depth - 1), pred(depth - 1)).map { case (l, r) => And(l, r) },
      1 -> Gen.zip(pred(depth - 1), pred(depth - 1)).map { case (l, r) => Or(l, r) },
      1 -> pred(depth - 1).map(Not(_)))

  private def bind(e: Expression): Expression = e.transform {
    case r: AttributeReference => BoundReference(schema.fieldIndex(r.name), r.dataType, nullable = true)
  }

  test("skipping is sound: a file with a matching row is never skipped") {
    forAll(Gen.nonEmptyListOf(rowGen), pred(2), minSuccessful(2000)) { (rows, p) =>
      val bound = Predicate.createInterpreted(bind(p))
      val anyMatch = rows.exists(r => bound.eval(r))
      if (anyMatch) assert(DataSkipping.mayMatch(Seq(p), statsOf(rows)), s"skipped a file matching $p")
    }
  }

  test("files outside the range, all null, or without nulls are skipped") {
    val st = statsOf(Seq(rowOf(Some(1), Some("b"), None), rowOf(Some(5), Some("d"), None)))
    assert(!DataSkipping.mayMatch(Seq(EqualTo(a, Literal(7))), st))
    assert(!DataSkipping.mayMatch(Seq(GreaterThan(a, Literal(5))), st))
    assert(DataSkipping.mayMatch(Seq(GreaterThanOrEqual(a, Literal(5))), st))
    assert(!DataSkipping.mayMatch(Seq(IsNull(a)), st))
    assert(!DataSkipping.mayMatch(Seq(In(a, Seq(Literal(0), Literal(9)))), st))
    assert(!DataSkipping.mayMatch(Seq(EqualTo(s, Literal("e"))), st))
    assert(!DataSkipping.mayMatch(Seq(Not(LessThan(a, Literal(6)))), st))
    assert(!DataSkipping.mayMatch(Seq(IsNotNull(nx)), st))
    val nulls = statsOf(Seq(rowOf(None, None, None)))
    assert(!DataSkipping.mayMatch(Seq(EqualTo(a, Literal(1))), nulls))
    assert(!DataSkipping.mayMatch(Seq(IsNotNull(a)), nulls))
  }

  test("missing statistics never skip") {
    val none = FileStats.parse(None)
    assert(DataSkipping.mayMatch(Seq(EqualTo(a, Literal(1)), IsNull(a), IsNotNull(s)), none))
    assert(DataSkipping.mayMatch(Seq(EqualTo(a, Literal(1))), FileStats.parse(Some("{not json"))))
  }

  test("long strings keep a prefix; the max prefix still bounds the value") {
    val long = "m" * 40
    val st = statsOf(Seq(rowOf(None, Some(long), None)))
    assert(DataSkipping.mayMatch(Seq(EqualTo(s, Literal(long))), st))
    assert(!DataSkipping.mayMatch(Seq(EqualTo(s, Literal("n"))), st))
  }

  test("timestamps are kept to milliseconds with the max rounded up") {
    val ts = StatsColumn.indexed(StructType(Seq(StructField("t", TimestampType))), 32, None).toIndexedSeq
    val acc = new FileStatsAccumulator(ts)
    acc.update(InternalRow(1500L)) // 1.5 ms after the epoch
    val json = acc.toJson
    assert(json.contains("\"1970-01-01T00:00:00.001Z\"") && json.contains("\"1970-01-01T00:00:00.002Z\""), json)
    val t = AttributeReference("t", TimestampType)()
    assert(DataSkipping.mayMatch(Seq(EqualTo(t, Literal(1500L, TimestampType))), FileStats.parse(Some(json))))
  }
}
