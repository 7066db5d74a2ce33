package io.silt.features

import io.silt.actions.{Format, Metadata}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class IdentityColumnsSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val id = IdentityColumns.define(StructField("id", LongType), start = 1, step = 1, allowExplicitInsert = false)
  private def metadata(fields: Seq[StructField], props: Map[String, String] = Map.empty) =
    Metadata("t", None, None, Format(), StructType(fields).json, Nil, props, None)
  private def marked(m: Option[Long]) = m.fold(Seq(id, StructField("v", StringType)))(
    mark => IdentityColumns.withMarks(StructType(Seq(id, StructField("v", StringType))), Map("id" -> mark)).fields.toSeq)

  test("a metadata change that only moves identity marks is told from any other") {
    forAll(Gen.option(Gen.chooseNum(-5L, 100L)), Gen.option(Gen.chooseNum(-5L, 100L))) { (before, after) =>
      val (a, b) = (metadata(marked(before)), metadata(marked(after)))
      assert(IdentityColumns.onlyMarksChanged(a, b) == (before != after))
    }
    val before = metadata(marked(Some(3)))
    assert(!IdentityColumns.onlyMarksChanged(before, metadata(marked(Some(4)), Map("delta.appendOnly" -> "true"))))
    assert(!IdentityColumns.onlyMarksChanged(before, metadata(marked(Some(4)) :+ StructField("w", StringType))))
    assert(!IdentityColumns.onlyMarksChanged(before, metadata(marked(Some(4)).map(f =>
      if (f.name == "v") f.copy(nullable = false) else f))))
  }
}
