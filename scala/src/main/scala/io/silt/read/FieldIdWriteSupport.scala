package io.silt.read

import scala.jdk.CollectionConverters._

import io.silt.actions.ActionCodec
import io.silt.features.ColumnMapping
import org.apache.hadoop.conf.Configuration
import org.apache.parquet.hadoop.api.WriteSupport.WriteContext
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, Type}
import org.apache.spark.sql.execution.datasources.parquet.ParquetWriteSupport
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StructField, StructType}

/**
 * Spark's Parquet write support, with field ids on the element of each list and the key and value of each map
 * where the Spark field holding them says (`parquet.field.nested.ids`, keyed by the field's name path:
 * `col-1.element`, `col-2.value.key`). Spark writes the ids of struct fields only; Iceberg readers find every
 * column of a file by its field id, lists' and maps' too (icebergCompatV2). Only the file's schema changes:
 * the rows are written as Spark writes them.
 */
class FieldIdWriteSupport extends ParquetWriteSupport {
  override def init(configuration: Configuration): WriteContext = {
    val context = super.init(configuration)
    val sparkSchema = DataType.fromJson(configuration.get(ParquetWriteSupport.SPARK_ROW_SCHEMA)).asInstanceOf[StructType]
    if (!sparkSchema.exists(_.metadata.contains(ColumnMapping.ParquetNestedIdsKey))) context
    else new WriteContext(FieldIdWriteSupport.stamped(context.getSchema, sparkSchema), context.getExtraMetaData)
  }
}

object FieldIdWriteSupport {
  /** `schema` (the file's, written from `spark`) with the nested ids of `spark`'s fields on their lists and maps. */
  def stamped(schema: MessageType, spark: StructType): MessageType =
    new MessageType(schema.getName, stampFields(schema, spark).asJava)

  private def stampFields(g: GroupType, spark: StructType): Seq[Type] = g.getFields.asScala.toSeq.map { t =>
    spark.fields.find(_.name == t.getName).fold(t)(f => stampField(t, f))
  }

  private def stampField(t: Type, f: StructField): Type = {
    val ids = if (!f.metadata.contains(ColumnMapping.ParquetNestedIdsKey)) Map.empty[String, Int]
      else ActionCodec.mapper.readTree(f.metadata.getMetadata(ColumnMapping.ParquetNestedIdsKey).json).properties()
        .asScala.map(e => e.getKey -> e.getValue.asInt).toMap
    stamp(t, f.dataType, ids, t.getName)
  }

  private def stamp(t: Type, dt: DataType, ids: Map[String, Int], key: String): Type = {
    def withId(child: Type, part: String, childType: DataType): Type = {
      val k = s"$key.$part"
      val inner = stamp(child, childType, ids, k)
      ids.get(k).fold(inner)(inner.withId)
    }
    if (t.isPrimitive) return t
    val g = t.asGroupType
    (g.getLogicalTypeAnnotation, dt) match {
      case (_, s: StructType) => g.withNewFields(stampFields(g, s).asJava)
      case (_: LogicalTypeAnnotation.ListLogicalTypeAnnotation, a: ArrayType) if g.getFieldCount == 1 =>
        val repeated = g.getType(0)
        // three levels (list.element), as Spark writes lists; two (a repeated element) in the legacy form
        val rebuilt = if (!repeated.isPrimitive && repeated.asGroupType.getFieldCount == 1 &&
            repeated.getName != "array" && !repeated.getName.endsWith("_tuple")) {
          val r = repeated.asGroupType
          r.withNewFields(Seq(withId(r.getType(0), "element", a.elementType)).asJava)
        } else withId(repeated, "element", a.elementType)
        g.withNewFields(Seq(rebuilt).asJava)
      case (_: LogicalTypeAnnotation.MapLogicalTypeAnnotation, m: MapType) if g.getFieldCount == 1 &&
          !g.getType(0).isPrimitive =>
        val kv = g.getType(0).asGroupType
        val parts = kv.getFields.asScala.toSeq.map { f =>
          if (f.getName == "key") withId(f, "key", m.keyType) else withId(f, "value", m.valueType)
        }
        g.withNewFields(Seq[Type](kv.withNewFields(parts.asJava)).asJava)
      case _ => g
    }
  }
}
