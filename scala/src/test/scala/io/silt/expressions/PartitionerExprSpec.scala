package io.silt.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class PartitionerExprSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  private def agree(dt: DataType, bounds: Array[Any], values: Gen[Any]): Unit = {
    val expr = PartitionerExpr(BoundReference(0, dt, nullable = true), RangeBounds(dt, bounds))
    val generated = GenerateUnsafeProjection.generate(Seq(expr))
    forAll(Gen.option(values)) { v =>
      val row = InternalRow(v.orNull)
      assert(generated(row).getInt(0) == expr.eval(row))
    }
  }

  test("generated lookups agree with interpreted ones") {
    agree(LongType, Array[Any](-5L, 0L, 7L, 100L), Gen.choose(-10L, 110L))
    agree(IntegerType, Array[Any](1, 2, 3), Gen.choose(-2, 6))
    agree(DoubleType, Array[Any](-1.5, 0.0, 2.0, Double.NaN),
      Gen.oneOf(Gen.choose(-3.0, 3.0), Gen.const(Double.NaN), Gen.const(-0.0), Gen.const(0.0)))
    agree(StringType, Array[Any](UTF8String.fromString("b"), UTF8String.fromString("m")),
      Gen.alphaStr.map(s => UTF8String.fromString(s.take(3))))
  }

  test("ranges follow the bounds: v falls in range i when bounds(i - 1) < v <= bounds(i)") {
    val b = RangeBounds(LongType, Array[Any](10L, 20L))
    assert(Seq(5L, 10L, 11L, 20L, 21L).map(b.rangeOf) == Seq(0, 0, 1, 1, 2))
    assert(b.rangeOf(null) == 0)
  }
}
