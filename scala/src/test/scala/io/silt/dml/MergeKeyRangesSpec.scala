package io.silt.dml

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class MergeKeyRangesSpec extends AnyFunSuite {
  private def attr(name: String, dt: DataType) = AttributeReference(name, dt)()
  private val (tId, tCity, tScore, tDay) = (attr("id", LongType), attr("city", StringType), attr("score", DoubleType), attr("day", DateType))
  private val (sId, sCity, sScore, sDay) = (attr("id", LongType), attr("city", StringType), attr("score", DoubleType), attr("day", DateType))
  private val target = AttributeSet(Seq(tId, tCity, tScore, tDay))
  private val source = AttributeSet(Seq(sId, sCity, sScore, sDay))
  private def keys(on: Expression) = MergeKeyRanges.equalities(on, target, source)

  test("each top-level equality of a target column and a source column is a key, either way round") {
    assert(keys(And(EqualTo(tId, sId), EqualTo(sDay, tDay))) == Seq(tId -> sId, tDay -> sDay))
    assert(keys(And(EqualTo(tCity, sCity), GreaterThan(tId, Literal(3L)))) == Seq(tCity -> sCity))
  }

  test("an equality that is not a key of the target's rows gives no range") {
    // under OR, of two target columns, of two source columns, through a cast, null-safe
    assert(keys(Or(EqualTo(tId, sId), EqualTo(tCity, sCity))).isEmpty)
    assert(keys(EqualTo(tId, tId)).isEmpty && keys(EqualTo(sId, sId)).isEmpty)
    assert(keys(EqualTo(tId, Cast(attr("n", IntegerType), LongType))).isEmpty)
    assert(keys(EqualNullSafe(tId, sId)).isEmpty)
  }

  test("floating point gives no range: -0.0 equals 0.0, and NaN sorts above every number") {
    assert(keys(EqualTo(tScore, sScore)).isEmpty)
    // (a collated string, Spark 4's, is refused by its type name; the test sources compile for 3.5 too)
  }

  test("an empty source, or a key no source row has a value for, matches nothing") {
    assert(MergeKeyRanges(0L, Seq(Literal.FalseLiteral)).matchNothing)
    assert(!MergeKeyRanges(3L, Seq(And(GreaterThanOrEqual(tId, Literal(1L)), LessThanOrEqual(tId, Literal(2L))))).matchNothing)
  }
}
