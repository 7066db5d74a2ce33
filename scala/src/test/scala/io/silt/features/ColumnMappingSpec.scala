package io.silt.features

import io.silt.actions._

import org.apache.spark.sql.types.{ArrayType, DataType, DateType, DoubleType, IntegerType, LongType, MapType, StringType, StructField, StructType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class ColumnMappingSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val leaf: Gen[DataType] = Gen.oneOf(IntegerType, LongType, StringType, DoubleType, DateType)
  private def typeGen(depth: Int): Gen[DataType] =
    if (depth == 0) leaf
    else Gen.frequency(4 -> leaf, 1 -> structGen(depth - 1), 1 -> typeGen(depth - 1).map(ArrayType(_)),
      1 -> Gen.zip(leaf, typeGen(depth - 1)).map { case (k, v) => MapType(k, v) })
  private def structGen(depth: Int): Gen[StructType] = for {
    n <- Gen.choose(1, 4)
    types <- Gen.listOfN(n, typeGen(depth))
  } yield StructType(types.zipWithIndex.map { case (t, i) => StructField(s"c$i", t) })

  private def metadata(schema: StructType, mode: String, extra: Map[String, String] = Map.empty): Metadata =
    Metadata("id", None, None, Format(), schema.json, Nil, Map(TableProperties.ColumnMappingModeProperty.key -> mode) ++ extra, None)

  private def fields(dt: DataType): Seq[StructField] = dt match {
    case s: StructType => s.fields.toSeq.flatMap(f => f +: fields(f.dataType))
    case a: ArrayType => fields(a.elementType)
    case m: MapType => fields(m.keyType) ++ fields(m.valueType)
    case _ => Nil
  }

  test("every field gets a unique id and physical name; the logical schema is the schema given") {
    forAll(structGen(3), Gen.oneOf("name", "id")) { (schema, mode) =>
      val m = ColumnMapping.assign(metadata(schema, mode), upgrading = false)
      val all = fields(m.schema)
      val ids = all.map(_.metadata.getLong(ColumnMapping.IdKey))
      assert(ids.distinct.size == all.size && ids.max == all.size)
      assert(m.configuration(TableProperties.ColumnMappingMaxColumnId.key) == all.size.toString)
      assert(all.map(ColumnMapping.physicalName).forall(_.startsWith("col-")))
      assert(ColumnMapping.logicalSchema(m.schema) == schema)
      // assigning again changes nothing: ids are given once
      assert(ColumnMapping.assign(m, upgrading = false) == m)
    }
  }

  test("physical schemas and paths follow the physical names, also of pruned read schemas") {
    val schema = StructType(Seq(StructField("a", LongType), StructField("s", StructType(Seq(
      StructField("x", IntegerType), StructField("y", StringType))))))
    val m = ColumnMapping.assign(metadata(schema, "id"), upgrading = false)
    val mapping = ColumnMapping.of(m)
    val pruned = StructType(Seq(StructField("S", StructType(Seq(StructField("y", StringType)))), StructField("_tmp_row_index", LongType)))
    val physical = mapping.physicalSchema(pruned)
    val s = m.schema("s")
    assert(physical.fieldNames.toSeq == Seq(ColumnMapping.physicalName(s), "_tmp_row_index"))
    val y = s.dataType.asInstanceOf[StructType]("y")
    assert(physical.head.dataType.asInstanceOf[StructType].head.name == ColumnMapping.physicalName(y))
    assert(physical.head.metadata.getLong(ColumnMapping.ParquetFieldIdKey) == s.metadata.getLong(ColumnMapping.IdKey))
    assert(mapping.physicalPath(Seq("s", "Y")).contains(Seq(ColumnMapping.physicalName(s), ColumnMapping.physicalName(y))))
    assert(mapping.physicalPath(Seq("s", "nope")).isEmpty)
    assert(ColumnMapping.Disabled.physicalPath(Seq("s", "y")).contains(Seq("s", "y")))
  }

  test("upgrading keeps names as physical names and continues the ids; no mode drops the metadata") {
    val schema = StructType(Seq(StructField("a", LongType), StructField("b", StringType)))
    val upgraded = ColumnMapping.assign(metadata(schema, "name"), upgrading = true)
    assert(upgraded.schema.fields.map(ColumnMapping.physicalName).toSeq == Seq("a", "b"))
    val added = upgraded.copy(schemaString = upgraded.schema.add("c", IntegerType).json)
    val next = ColumnMapping.assign(added, upgrading = false)
    assert(next.schema("c").metadata.getLong(ColumnMapping.IdKey) == 3 && next.configuration(TableProperties.ColumnMappingMaxColumnId.key) == "3")
    val plain = ColumnMapping.assign(next.copy(configuration = Map.empty), upgrading = false)
    assert(plain.schema == schema.add("c", IntegerType))
  }

  test("only none to name may change the mode of an existing table") {
    val schema = StructType(Seq(StructField("a", LongType)))
    ColumnMapping.checkModeChange("t", metadata(schema, "none"), metadata(schema, "name"))
    for ((from, to) <- Seq("none" -> "id", "name" -> "none", "id" -> "name", "name" -> "id")) {
      val e = intercept[io.silt.errors.InvalidTableOperationException](
        ColumnMapping.checkModeChange("t", metadata(schema, from), metadata(schema, to)))
      assert(e.getMessage.contains(s"from '$from' to '$to'"))
    }
  }

  test("a new table with column mapping needs reader 2 and writer 5, or 3 and 7 with other reader features") {
    val schema = StructType(Seq(StructField("a", LongType)))
    assert(TableFeatures.protocolFor(schema, Map(TableProperties.ColumnMappingModeProperty.key -> "name")) == Protocol(2, 5))
    val withDvs = TableFeatures.protocolFor(schema, Map(TableProperties.ColumnMappingModeProperty.key -> "id",
      TableProperties.EnableDeletionVectors.key -> "true"))
    assert(withDvs.minReaderVersion == 3 && withDvs.readerFeatures.get == Set("columnMapping", "deletionVectors"))
  }
}
