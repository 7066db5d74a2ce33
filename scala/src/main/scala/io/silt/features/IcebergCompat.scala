package io.silt.features

import scala.collection.mutable

import io.silt.actions.{AddFile, Metadata, Protocol, RemoveFile}
import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite
import org.apache.spark.sql.types._

/**
 * icebergCompatV1 and icebergCompatV2 (`delta.enableIcebergCompatV1/V2`): every file of the table can be named
 * by Iceberg metadata. Writers keep the protocol's rules: column mapping, no deletion vectors, a row count in
 * every file's statistics, Iceberg's types, no renamed partitioning on replace, and (write.DataFileWriter) the
 * partition columns and int64 timestamps in each data file, with every field's id (V2: arrays' and maps' too).
 */
final class IcebergCompatFeature(val version: Int) extends Feature(s"icebergCompatV$version", Writer, ReadWrite) {
  override def requires: Seq[String] = Seq(ColumnMappingFeature.name)
  override def neededBy(t: TableShape): Boolean = t.properties.icebergCompatVersion.contains(version)
  override def impliedProperties: Map[String, String] =
    Map(TableProperties.ColumnMappingModeProperty.key -> ColumnMappingMode.Name.name)
  override def checkCommit(c: PendingCommit): Unit =
    if (c.properties.icebergCompatVersion.contains(version)) IcebergCompat.check(version, c)
  override def preparedMetadata(p: Protocol, m: Metadata): Metadata =
    if (version >= 2 && TableProperties(m.configuration).icebergCompatVersion.contains(version)) IcebergCompat.withNestedIds(m)
    else m
  override def dropRefusal: String = s"unset ${IcebergCompat.property(version).key} instead: the feature then has " +
    "no effect"
}

/** The rules of the icebergCompat features, and the tag a file written under them carries. */
object IcebergCompat {
  /** The tag of a file written under icebergCompat (Delta Lake's name): its value is the version. */
  val FileTag = "ICEBERG_COMPAT_VERSION"

  def property(version: Int): TableProperty[Boolean] =
    if (version == 1) TableProperties.EnableIcebergCompatV1 else TableProperties.EnableIcebergCompatV2

  private def violation(version: Int, sub: String, detail: String) = new InvalidTableOperationException(
    s"the validation of IcebergCompatV$version failed: $detail", null, ErrorClass.icebergCompatViolation(sub))

  /**
   * `after` (a table's properties as a statement leaves them) with iceberg taken out of
   * `delta.universalFormat.enabledFormats` when the statement turned every icebergCompat version off without
   * naming the formats, as Delta Lake does: UniForm needs one.
   */
  def withoutOrphanUniform(before: Map[String, String], after: Map[String, String]): Map[String, String] = {
    val key = TableProperties.UniversalFormats
    val (was, now) = (TableProperties(before), TableProperties(after))
    if (!(now.icebergEnabled && now.icebergCompatVersion.isEmpty && was.icebergCompatVersion.isDefined &&
        TableProperty.lookup(before, key.key) == TableProperty.lookup(after, key.key))) after
    else {
      val rest = key.of(after) - UniversalFormat.Iceberg
      val others = after.filterNot(_._1.equalsIgnoreCase(key.key))
      if (rest.isEmpty) others else others + (key.key -> rest.toSeq.sorted.mkString(","))
    }
  }

  /** Refuses a commit that breaks version `version`'s rules (the table enables it). */
  def check(version: Int, c: PendingCommit): Unit = {
    val props = c.properties
    val table = c.tablePath
    if (props.columnMappingMode == ColumnMappingMode.None) {
      throw violation(version, "WRONG_REQUIRED_TABLE_PROPERTY", s"table $table: IcebergCompatV$version requires " +
        s"table property '${TableProperties.ColumnMappingModeProperty.key}' to be 'name' or 'id', not 'none'. " +
        s"Set it to 'name' first (ALTER TABLE … SET TBLPROPERTIES ('${TableProperties.ColumnMappingModeProperty.key}' " +
        "= 'name')).")
    }
    val dvs = if (version == 1) c.protocol.writerFeatures.exists(_.contains(DeletionVectorsFeature.name))
              else props.deletionVectorsEnabled
    if (dvs) {
      throw violation(version, "DELETION_VECTORS_SHOULD_BE_DISABLED", s"table $table: IcebergCompatV$version " +
        s"requires deletion vectors to be disabled (${TableProperties.EnableDeletionVectors.key} = false" +
        (if (version == 1) ", and the deletionVectors feature dropped" else "") + "); then run REORG TABLE … " +
        "APPLY (PURGE) to rewrite the files that have them")
    }
    checkTypes(version, table, c.metadata.schema)
    TypeChanges.all(c.metadata.schema).find(ch => !icebergPromotion(ch.from, ch.to)).foreach { ch =>
      throw violation(version, "UNSUPPORTED_TYPE_WIDENING", s"table $table: field ${ch.path} was changed from " +
        s"${ch.from.sql} to ${ch.to.sql}, which Iceberg's schema evolution does not allow (it allows int to long, " +
        "float to double and a decimal's precision raised)")
    }
    c.actions.foreach {
      case a: AddFile if a.deletionVector.isDefined =>
        throw violation(version, "DELETION_VECTORS_NOT_PURGED", s"table $table: file ${a.path} has a deletion " +
          s"vector, which IcebergCompatV$version does not allow; run REORG TABLE … APPLY (PURGE)")
      case a: AddFile if a.numPhysicalRecords.isEmpty =>
        throw new InvalidTableOperationException(s"table $table: IcebergCompatV$version requires every file to " +
          s"have the numRecords statistic, and ${a.path} has none")
      case _ =>
    }
    c.previous.foreach { prev =>
      val (was, now) = (prev.partitionColumns.map(_.toLowerCase), c.metadata.partitionColumns.map(_.toLowerCase))
      if (was.nonEmpty && was != now && prev.id != c.metadata.id) {
        throw violation(version, "REPLACE_TABLE_CHANGE_PARTITION_NAMES", s"table $table: IcebergCompatV$version " +
          s"does not allow replacing a table partitioned by (${prev.partitionColumns.mkString(", ")}) with one " +
          s"partitioned by (${c.metadata.partitionColumns.mkString(", ")})")
      }
      // From another version, the files written under it are not this one's (as in Delta Lake, which lets a table
      // without one turn it on: its files keep what they hold, and REORG … UPGRADE UNIFORM rewrites them)
      if (TableProperties(prev.configuration).icebergCompatVersion.exists(_ != version)) checkFilesWritten(version, c)
    }
  }

  // Each file left after the commit must have been written under the version.
  private def checkFilesWritten(version: Int, c: PendingCommit): Unit = {
    val removed = c.actions.collect { case r: RemoveFile => r.path }.toSet
    val untagged = c.liveFiles().filterNot(a => removed(a.path) || a.tags.get(FileTag).contains(version.toString))
    if (untagged.nonEmpty) {
      throw violation(version, "CHANGE_VERSION_NEED_REWRITE", s"table ${c.tablePath}: turning IcebergCompatV$version " +
        s"on in place of another version requires rewriting the table's ${untagged.size} files written without it (such as ${untagged.head.path}): " +
        s"run REORG TABLE … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = $version))")
    }
  }

  /** Whether Iceberg (format 2) reads `from` widened to `to`: its promotions, byte and short being its int. */
  private def icebergPromotion(from: DataType, to: DataType): Boolean = (from, to) match {
    case (ByteType | ShortType | IntegerType, ShortType | IntegerType | LongType) => true
    case (FloatType, DoubleType) => true
    case (f: DecimalType, t: DecimalType) => f.scale == t.scale && t.precision >= f.precision
    case _ => false
  }

  private def checkTypes(version: Int, table: String, schema: StructType): Unit = {
    def walk(dt: DataType, path: String): Unit = dt match {
      case s: StructType => s.fields.foreach(f => walk(f.dataType, if (path.isEmpty) f.name else s"$path.${f.name}"))
      case a: ArrayType if version >= 2 => walk(a.elementType, s"$path.element")
      case m: MapType if version >= 2 => walk(m.keyType, s"$path.key"); walk(m.valueType, s"$path.value")
      case BooleanType | ByteType | ShortType | IntegerType | LongType | FloatType | DoubleType | _: DecimalType |
           _: StringType | BinaryType | DateType | TimestampType | TimestampNTZType =>
      case other => throw violation(version, "UNSUPPORTED_DATA_TYPE", s"table $table: IcebergCompatV$version does " +
        s"not support the type ${other.sql} of column $path" + (if (version == 1) " (version 1 allows no arrays or " +
          "maps: use version 2)" else ""))
    }
    walk(schema, "")
  }

  /**
   * `m` with an id for each array element and map key and value that lacks one, kept in the nearest struct
   * field's `delta.columnMapping.nested.ids` by physical name path (`col-1.element`, `col-2.value.key`), above
   * `delta.columnMapping.maxColumnId`, which is raised, as Delta Lake gives them.
   */
  def withNestedIds(m: Metadata): Metadata = {
    val maxKey = TableProperties.ColumnMappingMaxColumnId
    var maxId = math.max(maxKey.of(m.configuration), ColumnMapping.maxId(m.schema))
    var changed = false
    def field(f: StructField): StructField = {
      val existing = ColumnMapping.nestedIds(f)
      val ids = mutable.LinkedHashMap(existing.toSeq: _*)
      def walk(dt: DataType, key: String): DataType = dt match {
        case s: StructType => StructType(s.fields.map(field))
        case a: ArrayType =>
          val k = s"$key.element"
          if (!ids.contains(k)) { maxId += 1; ids(k) = maxId }
          a.copy(elementType = walk(a.elementType, k))
        case mt: MapType =>
          val (kk, vk) = (s"$key.key", s"$key.value")
          if (!ids.contains(kk)) { maxId += 1; ids(kk) = maxId }
          if (!ids.contains(vk)) { maxId += 1; ids(vk) = maxId }
          mt.copy(keyType = walk(mt.keyType, kk), valueType = walk(mt.valueType, vk))
        case other => other
      }
      val dt = walk(f.dataType, ColumnMapping.physicalName(f))
      if (ids.size == existing.size) f.copy(dataType = dt)
      else {
        changed = true
        val nested = new MetadataBuilder()
        ids.foreach { case (k, v) => nested.putLong(k, v) }
        f.copy(dataType = dt, metadata = new MetadataBuilder().withMetadata(f.metadata)
          .putMetadata(ColumnMapping.NestedIdsKey, nested.build()).build())
      }
    }
    val schema = StructType(m.schema.fields.map(field))
    if (!changed) m
    else m.copy(schemaString = schema.json, configuration =
      m.configuration.filterNot(_._1.equalsIgnoreCase(maxKey.key)) + (maxKey.key -> maxId.toString))
  }
}
