package io.silt.optimize

import io.silt.actions.{AddFile, Format, Metadata}
import org.apache.spark.sql.types.{LongType, StringType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

class LayoutQualitySpec extends AnyFunSuite {
  private val metadata = Metadata("t", None, None, Format(),
    StructType(Seq(StructField("x", LongType), StructField("s", StringType))).json, Nil, Map.empty, None)
  private def file(i: Int, lo: Long, hi: Long) =
    AddFile(s"f$i", Map.empty, 1, 0, dataChange = true, stats = Some(s"""{"numRecords":1,"minValues":{"x":$lo,"s":"a"},"maxValues":{"x":$hi,"s":"b"}}"""))

  test("files side by side: a 1% range reads about one of them; files spanning everything: all") {
    val sideBySide = (0 until 10).map(i => file(i, i * 100L, i * 100L + 99))
    val f = LayoutQuality.rangeReadFraction(sideBySide, metadata, Seq("x"))("x")
    assert(f >= 0.1 && f <= 0.12, f)
    val spanning = (0 until 10).map(i => file(i, 0, 999))
    assert(LayoutQuality.rangeReadFraction(spanning, metadata, Seq("x")) == Map("x" -> 1.0))
  }

  test("a file without bounds is read by every range; strings get no figure") {
    val files = (0 until 9).map(i => file(i, i * 100L, i * 100L + 99)) :+ AddFile("nostats", Map.empty, 1, 0, dataChange = true)
    assert(LayoutQuality.rangeReadFraction(files, metadata, Seq("x"))("x") >= 0.2)
    assert(LayoutQuality.rangeReadFraction(files, metadata, Seq("s")).isEmpty)
  }
}
