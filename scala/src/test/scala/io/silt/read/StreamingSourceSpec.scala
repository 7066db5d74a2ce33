package io.silt.read

import io.silt.errors.{InvalidTableOperationException, SourceRowsChangedException, SourceSchemaChangedException,
  SourceTableReplacedException}
import io.silt.actions.{AddFile, Format, Metadata, RemoveFile}
import org.apache.spark.sql.execution.streaming.runtime.SerializedOffset
import org.apache.spark.sql.types.{IntegerType, LongType, StringType, StructField, StructType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class StreamingSourceSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val offsets = for {
    id <- Gen.uuid.map(_.toString)
    version <- Gen.choose(0L, Long.MaxValue / 2)
    index <- Gen.choose(-1L, 100000L)
    initial <- Gen.oneOf(true, false)
  } yield SourceOffset(id, version, index, initial)

  test("an offset reads back from its JSON as Spark's offset log hands it over") {
    forAll(offsets) { o =>
      assert(SourceOffset.of(SerializedOffset(o.json), o.tableId, "/t") == o)
    }
  }

  test("an offset of another table is refused, naming both ids") {
    val e = intercept[SourceTableReplacedException](SourceOffset.of(SourceOffset("a", 1, -1, false), "b", "/t"))
    assert(e.getMessage.contains("table id a") && e.getMessage.contains("has id b"))
  }

  test("Delta Lake's offsets go on with the same meaning; its schema-tracking marks are refused") {
    def delta(version: Long, index: Long, starting: Boolean) = SerializedOffset(s"""{"sourceVersion":1,"reservoirId":"r",""" +
      s""""reservoirVersion":$version,"index":$index,"isStartingVersion":$starting}""")
    assert(SourceOffset.of(delta(7, -1, starting = false), "r", "/t") == SourceOffset("r", 7, -1, isInitialSnapshot = false))
    assert(SourceOffset.of(delta(7, 3, starting = false), "r", "/t") == SourceOffset("r", 7, 3, isInitialSnapshot = false))
    assert(SourceOffset.of(delta(7, 3, starting = true), "r", "/t") == SourceOffset("r", 7, 3, isInitialSnapshot = true))
    assert(SourceOffset.of(delta(7, Long.MaxValue, starting = false), "r", "/t") == SourceOffset("r", 8, -1, false))
    assert(intercept[InvalidTableOperationException](SourceOffset.of(delta(7, -20, starting = false), "r", "/t"))
      .getMessage.contains("startingVersion"))
    intercept[InvalidTableOperationException](SourceOffset.of(SerializedOffset("""{"x":1}"""), "r", "/t"))
    intercept[SourceTableReplacedException](SourceOffset.of(delta(7, -1, starting = false), "other", "/t"))
  }

  private val schema = StructType(Seq(StructField("id", LongType), StructField("k", IntegerType)))
  private def metadata(s: StructType = schema, id: String = "t", partitions: Seq[String] = Nil) =
    Metadata(id, None, None, Format(), s.json, partitions, Map.empty, None)
  private def options(skip: Boolean = false, deletes: Boolean = false, changes: Boolean = false) =
    SourceOptions(StartingPoint.InitialSnapshot, None, None, deletes, changes, skip)
  private def add(p: String, dataChange: Boolean = true) = AddFile(p, Map.empty, 1, 0, dataChange)
  private def remove(p: String, dataChange: Boolean = true) = RemoveFile(p, Some(0), dataChange)

  test("a commit's files with data are read in order; reorganising commits give none") {
    val commits = new SourceCommits("/t", metadata(), 5, options())
    assert(commits.admitted(6, Seq(add("a"), add("b"), add("c", dataChange = false))).map(_.path) == Seq("a", "b"))
    assert(commits.admitted(7, Seq(remove("a", dataChange = false), add("d", dataChange = false))).isEmpty)
  }

  test("deletes and rewrites stop the stream unless an option says what to do with them") {
    val delete = Seq(remove("a"))
    val rewrite = Seq(remove("a"), add("a2"))
    val plain = new SourceCommits("/t", metadata(), 5, options())
    assert(intercept[SourceRowsChangedException](plain.admitted(6, delete)).getMessage.contains("startingVersion 7"))
    intercept[SourceRowsChangedException](plain.admitted(6, rewrite))
    val deletes = new SourceCommits("/t", metadata(), 5, options(deletes = true))
    assert(deletes.admitted(6, delete).isEmpty)
    intercept[SourceRowsChangedException](deletes.admitted(6, rewrite))
    assert(new SourceCommits("/t", metadata(), 5, options(changes = true)).admitted(6, rewrite).map(_.path) == Seq("a2"))
    assert(new SourceCommits("/t", metadata(), 5, options(skip = true, changes = true)).admitted(6, rewrite).isEmpty)
  }

  test("a schema change after the stream's schema stops it; older schemas whose columns are kept read on") {
    val wider = StructType(schema.fields :+ StructField("note", StringType))
    val stream = new SourceCommits("/t", metadata(wider), 5, options())
    assert(stream.admitted(3, Seq(metadata(schema), add("a"))).size == 1)  // before the column was added
    val e = intercept[SourceSchemaChangedException](
      new SourceCommits("/t", metadata(schema), 5, options()).admitted(6, Seq(metadata(wider))))
    assert(e.getMessage.contains("Restart the query"))
    val retyped = StructType(Seq(StructField("id", StringType), StructField("k", IntegerType)))
    assert(intercept[SourceSchemaChangedException](stream.admitted(3, Seq(metadata(retyped))))
      .getMessage.contains("startingVersion 4"))
    intercept[SourceSchemaChangedException](stream.admitted(3, Seq(metadata(wider, partitions = Seq("k")))))
    intercept[SourceTableReplacedException](stream.admitted(6, Seq(metadata(wider, id = "other"))))
    assert(stream.admitted(6, Seq(metadata(wider))).isEmpty)  // a property change: same schema
  }
}
