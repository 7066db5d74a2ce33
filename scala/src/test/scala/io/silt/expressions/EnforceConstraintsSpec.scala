package io.silt.expressions

import scala.util.Try

import io.silt.errors.ConstraintViolationException
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, IsNotNull, LessThan, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.types.{IntegerType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class EnforceConstraintsSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val id = BoundReference(0, IntegerType, nullable = true)
  private val s = BoundReference(1, StringType, nullable = true)
  // NOT NULL id, CHECK (id < 10) showing id and s
  private val check = EnforceConstraints(
    Seq(ConstraintRule("id", "NOT NULL constraint violated for column id", Nil),
      ConstraintRule("small", "CHECK constraint small (id < 10) violated", Seq("id", "s"))),
    Seq(IsNotNull(id), LessThan(id, Literal(10)), id, s))
  private lazy val compiled = GenerateUnsafeProjection.generate(Seq(check))

  private def outcome(evaluate: => Any): Either[String, Any] =
    Try(evaluate).toEither.left.map {
      case e: ConstraintViolationException => e.getMessage
      case other => throw other
    }

  test("generated code and interpretation agree on every row: true, or the same violation and values") {
    forAll(Gen.option(Gen.choose(-5, 20)), Gen.option(Gen.alphaStr)) { (i, str) =>
      val row = InternalRow(i.map(Int.box).orNull, str.map(UTF8String.fromString).orNull)
      val interpreted = outcome(check.eval(row))
      val generated = outcome(compiled(row).getBoolean(0))
      assert(interpreted == generated)
      i match {
        case None => assert(interpreted.left.exists(_.contains("column id")))
        case Some(v) if v >= 10 => assert(interpreted.left.exists(m => m.contains(s"id: $v") && m.contains("small")))
        case Some(_) => assert(interpreted == Right(true))
      }
    }
  }
}
