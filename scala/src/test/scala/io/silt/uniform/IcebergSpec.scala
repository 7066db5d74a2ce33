package io.silt.uniform

import java.nio.ByteOrder

import scala.jdk.CollectionConverters._

import io.silt.actions.{Format, Metadata => DeltaMetadata}
import io.silt.errors.InvalidTableOperationException
import io.silt.features.{ColumnMapping, IcebergCompat}
import io.silt.read.FieldIdWriteSupport
import org.apache.avro.generic.GenericData
import org.apache.parquet.schema.MessageTypeParser
import org.apache.spark.sql.execution.datasources.parquet.SparkToParquetSchemaConverter
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class IcebergSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def metadata(schema: StructType, config: Map[String, String]) =
    DeltaMetadata("t", None, None, Format(), schema.json, Nil, config, None)

  private def mapped(schema: StructType): StructType = IcebergCompat.withNestedIds(ColumnMapping.assign(
    metadata(schema, Map("delta.columnMapping.mode" -> "name")), upgrading = false)).schema

  /** Every field id an Iceberg schema's JSON gives: fields', lists' elements', maps' keys' and values'. */
  private def idsOf(n: com.fasterxml.jackson.databind.JsonNode): Seq[Int] =
    Seq("id", "element-id", "key-id", "value-id").filter(n.has).map(n.get(_).asInt) ++
      n.elements().asScala.toSeq.flatMap(idsOf)

  private val nested = mapped(StructType(Seq(
    StructField("id", LongType, nullable = false),
    StructField("tags", ArrayType(StringType)),
    StructField("attrs", MapType(StringType, ArrayType(IntegerType))),
    StructField("s", StructType(Seq(StructField("a", IntegerType), StructField("b", ArrayType(IntegerType))))))))

  test("field ids are the column mapping ids; arrays' and maps' fields take the nested ids, all distinct") {
    val schema = IcebergSchema.of("t", nested)
    val ids = idsOf(schema.json)
    assert(ids.distinct.size == ids.size, s"ids $ids repeat")
    assert(schema.lastColumnId == ids.max)
    assert(schema.topLevelIds("id") == nested("id").metadata.getLong(ColumnMapping.IdKey).toInt)
    val fields = schema.json.get("fields")
    assert(fields.get(0).get("required").asBoolean && fields.get(0).get("type").asText == "long")
    assert(fields.get(2).get("type").get("type").asText == "map")
    assert(fields.get(2).get("type").get("value").get("type").asText == "list")
    // leaves of lists and maps get no statistics: Delta keeps none for them
    assert(schema.leaves.filterNot(_.inList).map(_.logicalPath) == Seq(Seq("id"), Seq("s", "a")))
    // the name mapping names each field by its physical name, lists' and maps' children by their part
    val mapping = schema.nameMapping
    assert(mapping.get(0).get("names").get(0).asText == ColumnMapping.physicalName(nested("id")))
    assert(mapping.get(1).get("fields").get(0).get("names").get(0).asText == "element")
  }

  test("nested ids are assigned once, above maxColumnId, which is raised to cover them") {
    val plain = ColumnMapping.assign(metadata(StructType(Seq(StructField("a", ArrayType(MapType(StringType, LongType))))),
      Map("delta.columnMapping.mode" -> "name")), upgrading = false)
    val once = IcebergCompat.withNestedIds(plain)
    assert(IcebergCompat.withNestedIds(once) == once)
    val ids = ColumnMapping.nestedIds(once.schema("a"))
    val physical = ColumnMapping.physicalName(once.schema("a"))
    assert(ids.keySet == Set(s"$physical.element", s"$physical.element.key", s"$physical.element.value"))
    assert(ids.values.toSet == Set(2L, 3L, 4L))
    assert(once.configuration("delta.columnMapping.maxColumnId") == "4")
  }

  test("a type Iceberg cannot name is refused, naming the column") {
    val e = intercept[InvalidTableOperationException](IcebergSchema.of("t", mapped(StructType(Seq(
      StructField("i", CalendarIntervalType))))))
    assert(e.getMessage.contains("column i") && e.getMessage.contains("INTERVAL"))
  }

  test("a column without a column mapping id is refused") {
    intercept[InvalidTableOperationException](IcebergSchema.of("t", StructType(Seq(StructField("x", IntegerType)))))
  }

  test("single-value binary forms are Iceberg's: little-endian numbers, UTF-8 strings, big-endian decimals") {
    val i = IcebergValues.binary(1, IntegerType).get
    assert(i.order(ByteOrder.LITTLE_ENDIAN).getInt(0) == 1 && i.remaining == 4)
    assert(IcebergValues.binary(3.toByte, ByteType).get.remaining == 4, "a byte is an Iceberg int")
    assert(IcebergValues.binary(7L, TimestampType).get.remaining == 8)
    assert(java.nio.charset.StandardCharsets.UTF_8.decode(IcebergValues.binary(UTF8String.fromString("é"),
      StringType).get).toString == "é")
    val d = IcebergValues.binary(Decimal(BigDecimal("-1.25"), 5, 2), DecimalType(5, 2)).get
    assert(new java.math.BigInteger(d.array()).intValue == -125)
    assert(IcebergValues.binary(null, IntegerType).isEmpty && IcebergValues.binary(1.0f, StringType).isEmpty)
  }

  test("a decimal's fixed size is the least that holds its precision") {
    assert(Seq(1, 2, 9, 10, 18, 19, 38).map(IcebergValues.decimalBytes) == Seq(1, 1, 4, 5, 8, 9, 16))
  }

  test("partition values read back from Avro as the values written") {
    val types: Seq[(DataType, Gen[Any])] = Seq(
      IntegerType -> Gen.choose(Int.MinValue, Int.MaxValue),
      ShortType -> Gen.choose(Short.MinValue, Short.MaxValue),
      LongType -> Gen.choose(Long.MinValue, Long.MaxValue),
      DateType -> Gen.choose(-100000, 100000),
      BooleanType -> Gen.oneOf(true, false),
      StringType -> Gen.alphaNumStr.map(UTF8String.fromString),
      DecimalType(12, 3) -> Gen.choose(-999999999999L, 999999999999L).map(u => Decimal(BigDecimal(u, 3), 12, 3)),
      DecimalType(38, 0) -> Gen.choose(Long.MinValue, Long.MaxValue).map(u => Decimal(BigDecimal(u) * 1000000, 38, 0)))
    types.foreach { case (dt, gen) =>
      val schema = IcebergValues.avroType(dt)
      forAll(gen) { v =>
        val back = IcebergValues.fromAvro(IcebergValues.avroValue(v, dt, schema), dt)
        assert(back == v, s"$dt: $v came back as $back")
      }
      assert(IcebergValues.fromAvro(IcebergValues.avroValue(null, dt, schema), dt) == null)
    }
  }

  test("table metadata reads back as written") {
    val schema = IcebergSchema.of("t", nested)
    val m = IcebergTableMetadata(uuid = "u", location = "file:/t", lastSequenceNumber = 2, lastUpdatedMs = 5,
      lastColumnId = schema.lastColumnId, schemas = Seq(schema.withId(0)), currentSchemaId = 0,
      specs = Seq(io.silt.actions.ActionCodec.mapper.readTree("""{"spec-id":0,"fields":[]}""")
        .asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]), defaultSpecId = 0, lastPartitionId = 999,
      properties = Map("delta-version" -> "3"),
      snapshots = Seq(IcebergSnapshot(11L, None, 1, 4, "file:/t/metadata/snap.avro", Map("delta-version" -> "3"), 0)),
      currentSnapshotId = Some(11L), snapshotLog = Seq(4L -> 11L), metadataLog = Seq(3L -> "file:/t/metadata/v1.metadata.json"))
    val back = IcebergTableMetadata.parse(m.json)
    assert(back.copy(schemas = Nil, specs = Nil) == m.copy(schemas = Nil, specs = Nil))
    assert(back.schemas.map(_.toString) == m.schemas.map(_.toString))
    assert(back.currentSnapshot.flatMap(_.deltaVersion).contains(3L))
  }

  test("the Parquet schema of a write gets the ids of lists' elements and maps' keys and values") {
    val physical = ColumnMapping(io.silt.features.ColumnMappingMode.Name, nested).physicalWriteSchema(
      StructType(nested.fields.map(f => f.copy(metadata = org.apache.spark.sql.types.Metadata.empty))))
    val conf = new SQLConf
    val message = new SparkToParquetSchemaConverter(conf).convert(physical)
    val stamped = FieldIdWriteSupport.stamped(MessageTypeParser.parseMessageType(message.toString), physical)
    val ids = " = (\\d+)".r.findAllMatchIn(stamped.toString).map(_.group(1).toInt).toSet
    val expected = idsOf(IcebergSchema.of("t", nested).json).toSet
    assert(expected.subsetOf(ids), s"the file's ids $ids lack ${expected -- ids}")
  }

  test("a Fixed decimal is padded with its sign") {
    val schema = IcebergValues.avroType(DecimalType(20, 2))
    val fixed = IcebergValues.avroValue(Decimal(BigDecimal("-0.01"), 20, 2), DecimalType(20, 2), schema)
      .asInstanceOf[GenericData.Fixed]
    assert(fixed.bytes().length == 9 && fixed.bytes().forall(_ == -1.toByte))
  }
}
