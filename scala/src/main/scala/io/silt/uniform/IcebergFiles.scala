package io.silt.uniform

import io.silt.actions.{AddFile, Metadata, TablePaths}
import io.silt.errors.InvalidTableOperationException
import io.silt.features.ColumnMapping
import io.silt.partition.PartitionValues
import io.silt.stats.FileStats
import io.silt.stats.FileStatsAccumulator.StringPrefixLength
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.types.{DoubleType, FloatType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * A Delta table version's files as Iceberg data files: absolute paths, identity partition tuples, and the
 * metrics Iceberg readers skip files by, from the file's Delta statistics where they are exact bounds.
 */
final class IcebergFiles(tablePath: Path, metadata: Metadata, schema: IcebergSchema, timeZone: String) {
  private val partitionSchema: StructType = metadata.partitionSchema
  private val parse = FileStats.parserFor(metadata)
  // Floating point bounds are left out: Delta's statistics say nothing of NaN, which Iceberg's bounds exclude.
  private val bounded = schema.leaves.filterNot(l => l.inList || l.dataType == FloatType || l.dataType == DoubleType)
  private val counted = schema.leaves.filterNot(_.inList)

  /** The partition spec of the table: an identity field for each partition column, ids from 1000 as Iceberg gives them. */
  def spec(specId: Int, firstFieldId: Int): SpecFields = {
    val fields = partitionSchema.fields.zipWithIndex.map { case (f, i) => (firstFieldId + i, f.name, f.dataType) }
    val json = IcebergSchema.nodes.arrayNode()
    partitionSchema.fields.zip(fields).foreach { case (f, (id, name, _)) =>
      val o = json.addObject()
      o.put("name", name)
      o.put("transform", "identity")
      o.put("source-id", schema.topLevelIds(f.name.toLowerCase))
      o.put("field-id", id)
    }
    SpecFields(specId, fields.toSeq, json.toString)
  }

  /** The partition spec's source column ids, the identity of a spec across metadata versions. */
  def specSourceIds: Seq[Int] = partitionSchema.fields.map(f => schema.topLevelIds(f.name.toLowerCase)).toSeq

  /** The absolute path Iceberg names a file by: qualified and decoded, as Delta Lake's conversion writes it. */
  def pathOf(add: AddFile): String = TablePaths.absolute(tablePath, add.path).toString

  /** `add` as an Iceberg data file; a file without a row count cannot be one and is refused, named. */
  def dataFile(add: AddFile): IcebergDataFile = {
    val stats = parse(add.stats)
    val records = stats.numRecords.getOrElse(throw new InvalidTableOperationException(s"table $tablePath: file " +
      s"${add.path} has no numRecords statistic, which an Iceberg data file needs; icebergCompat requires it of " +
      "every file (REORG TABLE … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2)) rewrites such files)"))
    val partition = partitionSchema.fields.toSeq.map { f =>
      val key = ColumnMapping.physicalName(f)
      val raw = add.partitionValues.find(_._1.equalsIgnoreCase(key)).map(_._2).orNull
      PartitionValues.parse(raw, f.dataType, timeZone)
    }
    if (!stats.tightBounds || add.deletionVector.isDefined) {
      return IcebergDataFile(pathOf(add), partition, records, add.size)
    }
    val nulls = counted.flatMap(l => stats.nullCount(l.logicalPath).map(l.id -> _)).toMap
    val values = counted.map(l => l.id -> records).toMap
    val lower = bounded.flatMap(l => stats.min(l.logicalPath, l.dataType).flatMap(IcebergValues.binary(_, l.dataType))
      .map(l.id -> _)).toMap
    val upper = bounded.flatMap { l =>
      stats.max(l.logicalPath, l.dataType).filter(exactUpper(l.dataType, _)).flatMap(IcebergValues.binary(_, l.dataType))
        .map(l.id -> _)
    }.toMap
    IcebergDataFile(pathOf(add), partition, records, add.size, values, nulls, lower, upper)
  }

  // A string maximum of the full prefix length may be a truncated prefix with a tie-breaker that some engines
  // choose below the greatest code point: not a bound Iceberg may trust.
  private def exactUpper(dt: org.apache.spark.sql.types.DataType, v: Any): Boolean = dt match {
    case _: StringType => v match {
      case s: UTF8String => s.numChars() < StringPrefixLength
      case _ => false
    }
    case _ => true
  }
}
