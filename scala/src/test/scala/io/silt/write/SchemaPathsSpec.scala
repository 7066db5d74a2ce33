package io.silt.write

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite

class SchemaPathsSpec extends AnyFunSuite {
  private val schema = StructType.fromDDL("a ARRAY<INT>, m MAP<STRING, ARRAY<STRUCT<x: SMALLINT>>>, s STRUCT<element: INT>")
  private def refuse(why: String): Nothing = throw new IllegalArgumentException(why)

  test("a path splits at the last struct field it names") {
    assert(SchemaPaths.splitAtField(schema, Seq("a", "element"), refuse) == (Seq("a"), Seq("element")))
    assert(SchemaPaths.splitAtField(schema, Seq("m", "value", "element", "x"), refuse) ==
      (Seq("m", "value", "element", "x"), Nil))
    assert(SchemaPaths.splitAtField(schema, Seq("m", "value", "element"), refuse) == (Seq("m"), Seq("value", "element")))
    // a struct field named element is a field, not an array step
    assert(SchemaPaths.splitAtField(schema, Seq("s", "element"), refuse) == (Seq("s", "element"), Nil))
    assert(intercept[IllegalArgumentException](SchemaPaths.splitAtField(schema, Seq("a", "key"), refuse))
      .getMessage.contains("has no key"))
  }

  test("the type within a field is found and replaced in place") {
    val m = schema("m").dataType
    assert(SchemaPaths.typeAt(m, Seq("key")) == StringType)
    val widened = SchemaPaths.within(schema("a").dataType, Seq("element"))(_ => LongType)
    assert(widened == ArrayType(LongType, containsNull = true))
    assert(SchemaPaths.typeAt(SchemaPaths.within(m, Seq("key"))(_ => LongType), Seq("key")) == LongType)
  }
}
