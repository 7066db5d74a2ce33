package io.silt.state

import io.silt.actions.Metadata
import io.silt.stats.StatsColumn
import org.apache.spark.sql.types._

/** The Parquet schema of checkpoint files: one struct column per action type. */
object CheckpointSchema {
  private val stringMap = MapType(StringType, StringType, valueContainsNull = true)

  val deletionVector: StructType = StructType(Seq(
    StructField("storageType", StringType), StructField("pathOrInlineDv", StringType),
    StructField("offset", IntegerType), StructField("sizeInBytes", IntegerType),
    StructField("cardinality", LongType), StructField("maxRowIndex", LongType)))

  val add: StructType = StructType(Seq(
    StructField("path", StringType), StructField("partitionValues", stringMap),
    StructField("size", LongType), StructField("modificationTime", LongType),
    StructField("dataChange", BooleanType), StructField("stats", StringType),
    StructField("tags", stringMap), StructField("deletionVector", deletionVector),
    StructField("baseRowId", LongType), StructField("defaultRowCommitVersion", LongType),
    StructField("clusteringProvider", StringType)))

  /** Tombstones carry no stats or tags in a checkpoint: they only serve VACUUM. */
  val remove: StructType = StructType(Seq(
    StructField("path", StringType), StructField("deletionTimestamp", LongType),
    StructField("dataChange", BooleanType), StructField("extendedFileMetadata", BooleanType),
    StructField("partitionValues", stringMap), StructField("size", LongType),
    StructField("deletionVector", deletionVector), StructField("baseRowId", LongType),
    StructField("defaultRowCommitVersion", LongType)))

  val metaData: StructType = StructType(Seq(
    StructField("id", StringType), StructField("name", StringType), StructField("description", StringType),
    StructField("format", StructType(Seq(StructField("provider", StringType), StructField("options", stringMap)))),
    StructField("schemaString", StringType), StructField("partitionColumns", ArrayType(StringType)),
    StructField("configuration", stringMap), StructField("createdTime", LongType)))

  val protocol: StructType = StructType(Seq(
    StructField("minReaderVersion", IntegerType), StructField("minWriterVersion", IntegerType),
    StructField("readerFeatures", ArrayType(StringType)), StructField("writerFeatures", ArrayType(StringType))))

  val txn: StructType = StructType(Seq(
    StructField("appId", StringType), StructField("version", LongType), StructField("lastUpdated", LongType)))

  val domainMetadata: StructType = StructType(Seq(
    StructField("domain", StringType), StructField("configuration", StringType), StructField("removed", BooleanType)))

  val checkpointMetadata: StructType = StructType(Seq(StructField("version", LongType), StructField("tags", stringMap)))

  val sidecar: StructType = StructType(Seq(
    StructField("path", StringType), StructField("sizeInBytes", LongType),
    StructField("modificationTime", LongType), StructField("tags", stringMap)))

  /** The columns of a classic checkpoint, or of a V2 checkpoint's main file (`v2`). */
  def topLevel(v2: Boolean): StructType = StructType(Seq(
    StructField("txn", txn), StructField("add", add), StructField("remove", remove),
    StructField("metaData", metaData), StructField("protocol", protocol),
    StructField("domainMetadata", domainMetadata)) ++
    (if (v2) Seq(StructField("checkpointMetadata", checkpointMetadata), StructField("sidecar", sidecar)) else Nil))

  /** The typed form of `add.stats` for this table: what `stats_parsed` holds. */
  def statsSchema(metadata: Metadata): StructType = {
    val columns = StatsColumn.forTable(metadata.dataSchema, metadata)
    def nested(cols: Seq[StatsColumn], depth: Int, leaf: StatsColumn => DataType): StructType = StructType(
      cols.groupBy(_.path(depth)).toSeq.sortBy { case (n, _) => cols.indexWhere(_.path(depth) == n) }.map { case (name, group) =>
        if (group.size == 1 && group.head.path.length == depth + 1) StructField(name, leaf(group.head))
        else StructField(name, nested(group, depth + 1, leaf))
      })
    StructType(Seq(
      StructField("numRecords", LongType),
      StructField("minValues", nested(columns.filter(_.hasMinMax), 0, _.dataType)),
      StructField("maxValues", nested(columns.filter(_.hasMinMax), 0, _.dataType)),
      StructField("nullCount", nested(columns, 0, _ => LongType)),
      StructField("tightBounds", BooleanType)))
  }
}
