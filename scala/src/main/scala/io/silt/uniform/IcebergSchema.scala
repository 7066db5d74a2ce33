package io.silt.uniform

import scala.collection.mutable

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{ArrayNode, JsonNodeFactory, ObjectNode}
import io.silt.errors.InvalidTableOperationException
import io.silt.features.ColumnMapping
import org.apache.spark.sql.types._

/**
 * One primitive struct field of a table as Iceberg sees it: its Iceberg field id, its logical and physical paths
 * (statistics are keyed by the physical one), its type, and whether it lies inside an array or a map.
 */
final case class IcebergLeaf(id: Int, logicalPath: Seq[String], physicalPath: Seq[String], dataType: DataType,
    inList: Boolean)

/**
 * A Delta schema as an Iceberg schema: each field's Iceberg id is its column mapping id, and the element of an
 * array and the key and value of a map take the ids column mapping keeps for them (`delta.columnMapping.nested.ids`
 * of the nearest struct field, keyed by physical name path). Field names are the logical ones; data files hold
 * physical names and field ids, and the name mapping (`schema.name-mapping.default`) lets a reader find the
 * columns of a file written without ids (a table that moved to column mapping after its first files).
 */
final class IcebergSchema private (val json: ObjectNode, val nameMapping: ArrayNode, val lastColumnId: Int,
    val leaves: Seq[IcebergLeaf], val topLevelIds: Map[String, Int]) {

  /** The schema as written in table metadata, with its id. */
  def withId(id: Int): ObjectNode = {
    val n = json.deepCopy()
    val out = IcebergSchema.nodes.objectNode()
    out.put("type", "struct")
    out.put("schema-id", id)
    out.set[JsonNode]("fields", n.get("fields"))
    out
  }

  /** Whether `other` (a schema of table metadata) has the same fields as this one, its id aside. */
  def sameFields(other: JsonNode): Boolean = other.get("fields") == json.get("fields")
}

object IcebergSchema {
  private[uniform] val nodes = JsonNodeFactory.instance

  /** The Iceberg schema of a column-mapped Delta schema; a column of a type Iceberg has no name for is refused, named. */
  def of(tablePath: String, schema: StructType): IcebergSchema = {
    val leaves = mutable.ArrayBuffer.empty[IcebergLeaf]
    var maxId = 0
    def note(id: Long, what: String): Int = {
      if (id <= 0 || id > Int.MaxValue) throw new InvalidTableOperationException(s"table $tablePath: $what has " +
        s"column id $id, which is not an Iceberg field id (1 to ${Int.MaxValue})")
      maxId = math.max(maxId, id.toInt)
      id.toInt
    }

    def idOf(f: StructField, path: Seq[String]): Int = {
      if (!f.metadata.contains(ColumnMapping.IdKey)) throw new InvalidTableOperationException(s"table $tablePath: " +
        s"column ${path.mkString(".")} has no ${ColumnMapping.IdKey}: Iceberg metadata needs column mapping ids")
      note(f.metadata.getLong(ColumnMapping.IdKey), s"column ${path.mkString(".")}")
    }

    // nested: the ids of the enclosing struct field; key: the physical path to this element, key or value.
    def typeOf(dt: DataType, logical: Seq[String], physical: Seq[String], nested: Map[String, Long], key: String,
        mapping: ObjectNode, inList: Boolean): JsonNode = {
      def nestedId(part: String): Int = {
        val k = s"$key.$part"
        val id = nested.getOrElse(k, throw new InvalidTableOperationException(s"table $tablePath: column " +
          s"${logical.mkString(".")} has no id for its $part (${ColumnMapping.NestedIdsKey} '$k'), which Iceberg " +
          "metadata needs: the table's icebergCompat feature assigns it"))
        note(id, s"the $part of ${logical.mkString(".")}")
      }
      def child(part: String, id: Int, t: DataType, holder: ObjectNode): JsonNode = {
        val m = nodes.objectNode()
        m.put("field-id", id)
        m.putArray("names").add(part)
        holder.withArray[ArrayNode]("fields").add(m)
        typeOf(t, logical :+ part, physical :+ part, nested, s"$key.$part", m, inList = true)
      }
      dt match {
        case s: StructType =>
          val n = nodes.objectNode()
          n.put("type", "struct")
          n.set[JsonNode]("fields", fieldsOf(s, logical, physical, mapping, inList))
          n
        case a: ArrayType =>
          val n = nodes.objectNode()
          n.put("type", "list")
          val id = nestedId("element")
          n.put("element-id", id)
          n.set[JsonNode]("element", child("element", id, a.elementType, mapping))
          n.put("element-required", !a.containsNull)
          n
        case m: MapType =>
          val n = nodes.objectNode()
          n.put("type", "map")
          val (kid, vid) = (nestedId("key"), nestedId("value"))
          n.put("key-id", kid)
          n.set[JsonNode]("key", child("key", kid, m.keyType, mapping))
          n.put("value-id", vid)
          n.set[JsonNode]("value", child("value", vid, m.valueType, mapping))
          n.put("value-required", !m.valueContainsNull)
          n
        case other => nodes.textNode(primitive(tablePath, logical, other))
      }
    }

    def fieldsOf(s: StructType, logical: Seq[String], physical: Seq[String], mapping: ObjectNode,
        inList: Boolean): ArrayNode = {
      val out = nodes.arrayNode()
      s.fields.foreach { f =>
        val (lp, pp) = (logical :+ f.name, physical :+ ColumnMapping.physicalName(f))
        val id = idOf(f, lp)
        val m = nodes.objectNode()
        m.put("field-id", id)
        m.putArray("names").add(ColumnMapping.physicalName(f))
        mapping.withArray[ArrayNode]("fields").add(m)
        val t = typeOf(f.dataType, lp, pp, ColumnMapping.nestedIds(f), ColumnMapping.physicalName(f), m, inList)
        f.dataType match {
          case _: StructType | _: ArrayType | _: MapType =>
          case other => leaves += IcebergLeaf(id, lp, pp, other, inList)
        }
        val field = nodes.objectNode()
        field.put("id", id)
        field.put("name", f.name)
        field.put("required", !f.nullable)
        field.set[JsonNode]("type", t)
        out.add(field)
      }
      out
    }

    val root = nodes.objectNode()
    val fields = fieldsOf(schema, Nil, Nil, root, inList = false)
    val json = nodes.objectNode()
    json.put("type", "struct")
    json.set[JsonNode]("fields", fields)
    val topLevel = schema.fields.map(f => f.name.toLowerCase -> f.metadata.getLong(ColumnMapping.IdKey).toInt).toMap
    new IcebergSchema(json, root.withArray[ArrayNode]("fields"), maxId, leaves.toSeq, topLevel)
  }

  /** Iceberg's name of a primitive type; the types icebergCompat allows, others refused by column. */
  def primitive(tablePath: String, path: Seq[String], dt: DataType): String = dt match {
    case BooleanType => "boolean"
    case ByteType | ShortType | IntegerType => "int"
    case LongType => "long"
    case FloatType => "float"
    case DoubleType => "double"
    case d: DecimalType => s"decimal(${d.precision}, ${d.scale})"
    case _: StringType => "string"
    case BinaryType => "binary"
    case DateType => "date"
    case TimestampType => "timestamptz"
    case TimestampNTZType => "timestamp"
    case other => throw new InvalidTableOperationException(s"table $tablePath: column ${path.mkString(".")} is of " +
      s"type ${other.sql}, which Iceberg metadata cannot describe; icebergCompat allows byte, short, int, long, " +
      "float, double, decimal, string, binary, boolean, timestamp, timestamp_ntz, date, array, map and struct")
  }
}
