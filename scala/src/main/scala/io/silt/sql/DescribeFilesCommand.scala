package io.silt.sql

import io.silt.features.ColumnMapping
import io.silt.log.TableLog
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types._

/**
 * DESCRIBE FILES: one row per live data file of the current version, with its statistics and
 * deletion vector, so that tools (Python's SiltTable.files(), the CLI) never read the log themselves.
 * Partition values are keyed by column name; `stats` is the log's own JSON (under column mapping,
 * keyed by physical names).
 */
final case class DescribeFilesCommand(table: TableRef) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = DescribeFilesCommand.schema.map(f => AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val s = TableLog.forPath(spark, table.path(spark).toString).latest()
    val mapping = ColumnMapping.of(s.metadata)
    s.files.map { a =>
      Row(
        a.path,
        s.filePath(a).toString,
        if (!mapping.enabled) a.partitionValues
        else s.metadata.partitionColumns.map(c => c -> a.partitionValues.getOrElse(mapping.partitionKey(c), null)).toMap,
        a.size,
        new java.sql.Timestamp(a.modificationTime),
        a.numPhysicalRecords.map(Long.box).orNull,
        a.numLogicalRecords.map(Long.box).orNull,
        a.stats.orNull,
        a.deletionVector.map(dv => Row(dv.storageType.code, dv.pathOrInlineDv, dv.offset.map(Int.box).orNull,
          dv.sizeInBytes, dv.cardinality)).orNull,
        a.numDeletedRecords)
    }
  }
}

object DescribeFilesCommand {
  val schema: StructType = StructType(Seq(
    StructField("path", StringType, nullable = false),
    StructField("absolutePath", StringType, nullable = false),
    StructField("partitionValues", MapType(StringType, StringType)),
    StructField("size", LongType, nullable = false),
    StructField("modificationTime", TimestampType),
    StructField("numRecords", LongType),
    StructField("numLogicalRecords", LongType),
    StructField("stats", StringType),
    StructField("deletionVector", StructType(Seq(
      StructField("storageType", StringType), StructField("pathOrInlineDv", StringType),
      StructField("offset", IntegerType), StructField("sizeInBytes", IntegerType),
      StructField("cardinality", LongType)))),
    StructField("deletedRows", LongType, nullable = false)))
}
