package io.silt.optimize

import io.silt.features.TypeChanges
import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class WidenedFilesSpec extends AnyFunSuite {
  private val table = StructType.fromDDL("id BIGINT, s STRUCT<x: INT, y: STRING>, a ARRAY<DECIMAL(12, 2)>, m MAP<STRING, DOUBLE>")

  test("a file differs where a field both have holds another type, at any depth") {
    assert(WidenedFiles.differs(StructType.fromDDL("id INT"), table))
    assert(WidenedFiles.differs(StructType.fromDDL("s STRUCT<x: SMALLINT>"), table))
    assert(WidenedFiles.differs(StructType.fromDDL("a ARRAY<DECIMAL(10, 2)>"), table))
    assert(WidenedFiles.differs(StructType.fromDDL("m MAP<STRING, FLOAT>"), table))
  }

  test("a file written in the table's types, or lacking columns, or not nullable, does not differ") {
    assert(!WidenedFiles.differs(table, table))
    assert(!WidenedFiles.differs(StructType.fromDDL("id BIGINT"), table))
    assert(!WidenedFiles.differs(StructType(Seq(StructField("id", LongType, nullable = false))), table))
    assert(!WidenedFiles.differs(StructType.fromDDL("dropped INT, s STRUCT<z: INT>"), table))
  }

  test("the type-change history is removed from every field and nothing else") {
    val change = new MetadataBuilder().putMetadataArray(TypeChanges.Key, Array(new MetadataBuilder()
      .putString("fromType", "integer").putString("toType", "long").build())).build()
    val comment = new MetadataBuilder().putString("comment", "kept").build()
    val inner = StructType(Seq(StructField("x", LongType, metadata = change)))
    val schema = StructType(Seq(StructField("id", LongType, metadata = new MetadataBuilder().withMetadata(change)
      .putString("comment", "kept").build()), StructField("s", inner)))
    assert(TypeChanges.all(schema).size == 2)
    val without = TypeChanges.without(schema)
    assert(TypeChanges.all(without).isEmpty)
    assert(without("id").metadata == comment && without("s").dataType == StructType(Seq(StructField("x", LongType))))
  }
}
