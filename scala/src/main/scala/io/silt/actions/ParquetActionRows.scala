package io.silt.actions

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.example.data.Group
import org.apache.parquet.hadoop.{ParquetFileReader, ParquetReader}
import org.apache.parquet.hadoop.api.ReadSupport
import org.apache.parquet.hadoop.example.GroupReadSupport
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.schema.{GroupType, LogicalTypeAnnotation, MessageType, PrimitiveType, Type}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName

/**
 * Reads the actions of a checkpoint (or sidecar) Parquet file on the driver, without a
 * Spark job: each row becomes the same single-action JSON object as a commit line. Fields that
 * only repeat the JSON ones in typed form (`stats_parsed`, `partitionValues_parsed`) are skipped.
 */
object ParquetActionRows {
  private val json = JsonNodeFactory.instance
  private val Skipped = Set("stats_parsed", "partitionValues_parsed")

  def read(path: Path, conf: Configuration): Seq[Action] = read(path, conf, Set.empty[String])

  /** The actions of the file; `only`, when not empty: just these top-level actions (`protocol`, …). */
  def read(path: Path, conf: Configuration, only: Set[String]): Seq[Action] = {
    val schema = projection(path, conf, only)
    if (schema.getFieldCount == 0) return Nil
    val projected = new Configuration(conf)
    projected.set(ReadSupport.PARQUET_READ_SCHEMA, schema.toString)
    val reader = ParquetReader.builder(new GroupReadSupport(), path).withConf(projected).build()
    val out = ArrayBuffer.empty[Action]
    try {
      var row = reader.read()
      while (row != null) {
        val node = group(row, row.getType)
        if (node.size() > 0) out += ActionCodec.fromNode(node)
        row = reader.read()
      }
    } finally reader.close()
    out.toSeq
  }

  /** The file's schema without the typed duplicates (so that their columns are not even decoded), and
   * with only the actions asked for. */
  private def projection(path: Path, conf: Configuration, only: Set[String]): MessageType = {
    val file = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf))
    val schema = try file.getFileMetaData.getSchema finally file.close()
    def prune(t: Type): Type =
      if (t.isPrimitive) t
      else t.asGroupType.withNewFields(t.asGroupType.getFields.asScala.filterNot(f => Skipped(f.getName)).map(prune).asJava)
    val top = schema.getFields.asScala.filter(f => only.isEmpty || only(f.getName))
    new MessageType(schema.getName, top.map(prune).asJava)
  }

  private def group(g: Group, t: GroupType): ObjectNode = {
    val o = json.objectNode()
    for (i <- 0 until t.getFieldCount) {
      val f = t.getType(i)
      if (!Skipped(f.getName) && g.getFieldRepetitionCount(i) > 0) o.set[JsonNode](f.getName, value(g, i, f))
    }
    o
  }

  /** The (single) value of field `i`, respecting the MAP and LIST encodings. */
  private def value(g: Group, i: Int, f: Type): JsonNode = {
    if (f.isPrimitive) return primitive(g, i, 0, f.asPrimitiveType)
    val inner = g.getGroup(i, 0)
    val ft = f.asGroupType
    ft.getLogicalTypeAnnotation match {
      case _: LogicalTypeAnnotation.MapLogicalTypeAnnotation =>
        val kv = ft.getType(0).asGroupType
        val o = json.objectNode()
        for (j <- 0 until inner.getFieldRepetitionCount(0)) {
          val entry = inner.getGroup(0, j)
          val k = entry.getString(0, 0)
          if (entry.getFieldRepetitionCount(1) == 0) o.putNull(k) else o.set[JsonNode](k, value(entry, 1, kv.getType(1)))
        }
        o
      case _: LogicalTypeAnnotation.ListLogicalTypeAnnotation =>
        val repeated = ft.getType(0)
        val a = json.arrayNode()
        for (j <- 0 until inner.getFieldRepetitionCount(0)) {
          if (repeated.isPrimitive) a.add(primitive(inner, 0, j, repeated.asPrimitiveType))
          else {
            val wrapper = inner.getGroup(0, j)
            val rt = repeated.asGroupType
            if (rt.getFieldCount == 1) {
              if (wrapper.getFieldRepetitionCount(0) == 0) a.addNull() else a.add(value(wrapper, 0, rt.getType(0)))
            } else a.add(group(wrapper, rt))
          }
        }
        a
      case _ => group(inner, ft)
    }
  }

  private def primitive(g: Group, i: Int, j: Int, t: PrimitiveType): JsonNode = t.getPrimitiveTypeName match {
    case PrimitiveTypeName.BINARY | PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY => json.textNode(g.getString(i, j))
    case PrimitiveTypeName.INT32 => json.numberNode(g.getInteger(i, j))
    case PrimitiveTypeName.INT64 => json.numberNode(g.getLong(i, j))
    case PrimitiveTypeName.BOOLEAN => json.booleanNode(g.getBoolean(i, j))
    case PrimitiveTypeName.DOUBLE => json.numberNode(g.getDouble(i, j))
    case PrimitiveTypeName.FLOAT => json.numberNode(g.getFloat(i, j))
    case PrimitiveTypeName.INT96 => json.nullNode()
  }
}
