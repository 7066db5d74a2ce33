package io.silt.features

import scala.util.Try

import io.silt.actions._
import java.util.UUID

import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, Metadata => FieldMetadata, MetadataBuilder, StructField, StructType}

/**
 * Delta column mapping (`delta.columnMapping.mode`): users see logical column names; data files,
 * statistics and partition values use each column's physical name (and, in `id` mode, Parquet
 * field ids), which never change. That is what lets a column be renamed or dropped without
 * rewriting data. `schema`: the table schema with its column mapping metadata.
 */
final case class ColumnMapping(mode: ColumnMappingMode, schema: StructType) {
  import ColumnMapping._

  def enabled: Boolean = mode != ColumnMappingMode.None

  /**
   * The physical form of `logical`, a schema whose fields are found by name in the table schema
   * (Spark's pruned read schemas): physical names, and field ids in `id` mode. Fields that are not
   * the table's (Spark's row index column) stay as they are.
   */
  def physicalSchema(logical: StructType): StructType =
    if (!enabled) logical else physicalStruct(logical, schema, fieldIds = mode == ColumnMappingMode.Id)

  /**
   * The physical form of `logical` as data files are written: physical names, and in both modes each field's
   * id as its Parquet field id (a writer requirement of column mapping), with the ids of arrays' and maps'
   * fields where the table keeps them (`parquet.field.nested.ids`, keyed by the field's physical name path).
   */
  def physicalWriteSchema(logical: StructType): StructType =
    if (!enabled) logical else physicalStruct(logical, schema, fieldIds = true)

  /** The physical name path of a logical column path (statistics keys); None when some name is not the table's. */
  def physicalPath(path: Seq[String]): Option[Seq[String]] = {
    def walk(dt: DataType, rest: Seq[String]): Option[List[String]] = (dt, rest) match {
      case (_, Seq()) => Some(Nil)
      case (s: StructType, name +: tail) =>
        s.fields.find(_.name.equalsIgnoreCase(name)).flatMap(f => walk(f.dataType, tail).map(physicalName(f) :: _))
      case _ => scala.None
    }
    if (!enabled) Some(path) else walk(schema, path)
  }

  /** The key of a top-level column in files' partition values. */
  def partitionKey(logicalName: String): String =
    schema.fields.find(_.name.equalsIgnoreCase(logicalName)).filter(_ => enabled).map(physicalName).getOrElse(logicalName)

  private def physicalStruct(logical: StructType, table: StructType, fieldIds: Boolean): StructType =
    StructType(logical.fields.map { f =>
      table.fields.find(_.name.equalsIgnoreCase(f.name)) match {
        case None => f
        case Some(t) =>
          val md = new MetadataBuilder().withMetadata(withoutMappingKeys(f.metadata))
          if (fieldIds) {
            md.putLong(ParquetFieldIdKey, idOf(t))
            val nested = nestedIds(t)
            if (nested.nonEmpty) {
              val ids = new MetadataBuilder()
              nested.foreach { case (k, v) => ids.putLong(k, v) }
              md.putMetadata(ParquetNestedIdsKey, ids.build())
            }
          }
          StructField(physicalName(t), physicalType(f.dataType, t.dataType, fieldIds), f.nullable, md.build())
      }
    })

  private def physicalType(logical: DataType, table: DataType, fieldIds: Boolean): DataType = (logical, table) match {
    case (l: StructType, t: StructType) => physicalStruct(l, t, fieldIds)
    case (l: ArrayType, t: ArrayType) => l.copy(elementType = physicalType(l.elementType, t.elementType, fieldIds))
    case (l: MapType, t: MapType) => l.copy(keyType = physicalType(l.keyType, t.keyType, fieldIds),
      valueType = physicalType(l.valueType, t.valueType, fieldIds))
    case (l, _) => l
  }

  private def idOf(f: StructField): Long =
    if (f.metadata.contains(IdKey)) f.metadata.getLong(IdKey)
    else throw new InvalidTableOperationException(s"column ${f.name} has no $IdKey, which a table in column " +
      "mapping mode 'id' needs for every column")
}

object ColumnMapping {
  val IdKey = "delta.columnMapping.id"
  val PhysicalNameKey = "delta.columnMapping.physicalName"
  val NestedIdsKey = "delta.columnMapping.nested.ids"
  /** The field metadata key Spark's Parquet reader and writer take a field id from. */
  val ParquetFieldIdKey = "parquet.field.id"
  /** The field metadata key of the Parquet field ids of arrays' and maps' fields within a field (read by read.FieldIdWriteSupport). */
  val ParquetNestedIdsKey = "parquet.field.nested.ids"
  private val MappingKeys = Seq(IdKey, PhysicalNameKey, NestedIdsKey, ParquetNestedIdsKey)

  /** No column mapping: every name is physical. */
  val Disabled: ColumnMapping = ColumnMapping(ColumnMappingMode.None, new StructType())

  def of(m: Metadata): ColumnMapping = ColumnMapping(TableProperties(m.configuration).columnMappingMode, m.schema)

  /** The field's name in data files: its physical name when it has one, else its name. */
  def physicalName(f: StructField): String =
    if (f.metadata.contains(PhysicalNameKey)) f.metadata.getString(PhysicalNameKey) else f.name

  /** The schema users see: without column mapping metadata (which a new table must not inherit). */
  def logicalSchema(schema: StructType): StructType = mapFields(schema)(f => f.copy(metadata = withoutMappingKeys(f.metadata)))

  /**
   * `m` with column mapping metadata fitting its mode: with a mode, every field without an id and
   * physical name gets fresh ones (above `delta.columnMapping.maxColumnId`, which is raised); a
   * table moving from no mapping to `name` mode (`upgrading`) keeps its columns' names as their
   * physical names, as Delta does, so that the files written so far still read. Without a mode,
   * any mapping metadata (from a schema copied off a mapped table) is dropped.
   */
  def assign(m: Metadata, upgrading: Boolean): Metadata = {
    val mode = TableProperties(m.configuration).columnMappingMode
    if (mode == ColumnMappingMode.None) {
      val plain = logicalSchema(m.schema)
      return if (plain == m.schema) m else m.copy(schemaString = plain.json)
    }
    val maxKey = m.configuration.keys.find(_.equalsIgnoreCase(TableProperties.ColumnMappingMaxColumnId.key))
    val ids = fields(m.schema).collect { case f if f.metadata.contains(IdKey) => f.metadata.getLong(IdKey) }
    var maxId = (maxKey.flatMap(k => Try(m.configuration(k).trim.toLong).toOption).getOrElse(0L) +: ids).max
    val schema = mapFields(m.schema) { f =>
      val md = new MetadataBuilder().withMetadata(f.metadata)
      if (!f.metadata.contains(IdKey)) { maxId += 1; md.putLong(IdKey, maxId) }
      if (!f.metadata.contains(PhysicalNameKey)) md.putString(PhysicalNameKey, if (upgrading) f.name else s"col-${UUID.randomUUID()}")
      f.copy(metadata = md.build())
    }
    m.copy(schemaString = schema.json,
      configuration = m.configuration.filterNot(kv => maxKey.contains(kv._1)) + (TableProperties.ColumnMappingMaxColumnId.key -> maxId.toString))
  }

  /**
   * Refuses a change of mode Delta does not allow on an existing table: only 'none' to 'name'
   * (columns keep their names as physical names). A replaced table may take any mode.
   */
  def checkModeChange(tablePath: String, previous: Metadata, next: Metadata): Unit = {
    val from = TableProperties(previous.configuration).columnMappingMode
    val to = TableProperties(next.configuration).columnMappingMode
    if (from != to && !(from == ColumnMappingMode.None && to == ColumnMappingMode.Name)) {
      throw new InvalidTableOperationException(s"table $tablePath: the column mapping mode cannot change from " +
        s"'${from.name}' to '${to.name}'; an existing table can only move from 'none' to 'name' " +
        s"(ALTER TABLE … SET TBLPROPERTIES ('${TableProperties.ColumnMappingModeProperty.key}' = 'name'))")
    }
  }

  private def withoutMappingKeys(md: FieldMetadata): FieldMetadata =
    if (!MappingKeys.exists(md.contains)) md
    else MappingKeys.foldLeft(new MetadataBuilder().withMetadata(md))(_.remove(_)).build()

  /** The largest column mapping id of `schema`, the ids of arrays' and maps' fields included. */
  def maxId(schema: StructType): Long =
    (fields(schema).flatMap(f => (if (f.metadata.contains(IdKey)) Seq(f.metadata.getLong(IdKey)) else Nil) ++
      nestedIds(f).values) :+ 0L).max

  /** A field's ids for the array elements and map keys and values within it, by physical name path. */
  def nestedIds(f: StructField): Map[String, Long] =
    if (!f.metadata.contains(NestedIdsKey)) Map.empty
    else {
      import scala.jdk.CollectionConverters._
      ActionCodec.mapper.readTree(f.metadata.getMetadata(NestedIdsKey).json).properties().asScala
        .map(e => e.getKey -> e.getValue.asLong).toMap
    }

  /** Every struct field, outermost first, inside structs, arrays and maps. */
  private def fields(dt: DataType): Seq[StructField] = dt match {
    case s: StructType => s.fields.toSeq.flatMap(f => f +: fields(f.dataType))
    case a: ArrayType => fields(a.elementType)
    case mt: MapType => fields(mt.keyType) ++ fields(mt.valueType)
    case _ => Nil
  }

  /** Applies `f` to every struct field, outermost first, inside structs, arrays and maps. */
  private def mapFields(schema: StructType)(f: StructField => StructField): StructType = {
    def inType(dt: DataType): DataType = dt match {
      case s: StructType => StructType(s.fields.map(field => { val g = f(field); g.copy(dataType = inType(g.dataType)) }))
      case a: ArrayType => a.copy(elementType = inType(a.elementType))
      case mt: MapType => mt.copy(keyType = inType(mt.keyType), valueType = inType(mt.valueType))
      case other => other
    }
    inType(schema).asInstanceOf[StructType]
  }
}
