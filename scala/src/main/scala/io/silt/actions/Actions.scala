package io.silt.actions

import com.fasterxml.jackson.databind.JsonNode
import io.silt.dv.DeletionVectorDescriptor
import org.apache.spark.sql.types.{DataType, StructType}

/** One line of a Delta commit file. */
sealed trait Action

/** The reader and writer versions (and, from reader 3 / writer 7, the features) a table needs. */
final case class Protocol(
    minReaderVersion: Int,
    minWriterVersion: Int,
    readerFeatures: Option[Set[String]] = None,
    writerFeatures: Option[Set[String]] = None) extends Action

/** The storage format of data files; always Parquet for Delta. */
final case class Format(provider: String = "parquet", options: Map[String, String] = Map.empty)

/** The table's schema, partitioning and properties. */
final case class Metadata(
    id: String,
    name: Option[String],
    description: Option[String],
    format: Format,
    schemaString: String,
    partitionColumns: Seq[String],
    configuration: Map[String, String],
    createdTime: Option[Long]) extends Action {

  lazy val schema: StructType = DataType.fromJson(schemaString).asInstanceOf[StructType]

  /** The partition columns as fields of the schema, in the order of `partitionColumns`. */
  lazy val partitionSchema: StructType = StructType(partitionColumns.map { c =>
    schema.find(_.name.equalsIgnoreCase(c)).getOrElse(
      throw new IllegalStateException(s"partition column $c is not in the table schema"))
  })

  /** The columns stored in the data files: the schema less the partition columns. */
  lazy val dataSchema: StructType =
    StructType(schema.filterNot(f => partitionColumns.exists(_.equalsIgnoreCase(f.name))))
}

/** A data file that is part of the table (from its commit on, until a matching remove). */
final case class AddFile(
    path: String,
    partitionValues: Map[String, String],
    size: Long,
    modificationTime: Long,
    dataChange: Boolean,
    stats: Option[String] = None,
    tags: Map[String, String] = Map.empty,
    deletionVector: Option[DeletionVectorDescriptor] = None,
    baseRowId: Option[Long] = None,
    defaultRowCommitVersion: Option[Long] = None,
    clusteringProvider: Option[String] = None) extends Action {
  /** Rows in the data file: its statistics' numRecords, parsed once; None without statistics. */
  lazy val numPhysicalRecords: Option[Long] = stats.flatMap(AddFile.numRecordsOf)

  /** Rows its deletion vector deletes. */
  def numDeletedRecords: Long = deletionVector.map(_.cardinality).getOrElse(0L)

  /** Rows a reader sees: the file's rows less the deleted ones; None without statistics. */
  def numLogicalRecords: Option[Long] = numPhysicalRecords.map(_ - numDeletedRecords)

  /** The share of the file's rows that are deleted (1 when a DV exists but the row count is unknown). */
  def deletedRowsRatio: Double =
    if (deletionVector.isEmpty) 0.0 else numPhysicalRecords.filter(_ > 0).map(numDeletedRecords.toDouble / _).getOrElse(1.0)


  /** Its tombstone, carrying the row-tracking fields of this add as the protocol asks. */
  def remove(timestamp: Long, dataChange: Boolean = true): RemoveFile =
    RemoveFile(path, Some(timestamp), dataChange, Some(true), partitionValues, Some(size), stats,
      tags, deletionVector, baseRowId, defaultRowCommitVersion)
}

object AddFile {
  /** The numRecords of a file's statistics, when they hold it. */
  def numRecordsOf(stats: String): Option[Long] =
    try Option(ActionCodec.mapper.readTree(stats)).flatMap(n => Option(n.get("numRecords"))).filter(_.isNumber).map(_.asLong)
    catch { case _: Exception => None }
}

/** A tombstone: the file (with that deletion vector) is no longer part of the table. */
final case class RemoveFile(
    path: String,
    deletionTimestamp: Option[Long],
    dataChange: Boolean,
    extendedFileMetadata: Option[Boolean] = None,
    partitionValues: Map[String, String] = Map.empty,
    size: Option[Long] = None,
    stats: Option[String] = None,
    tags: Map[String, String] = Map.empty,
    deletionVector: Option[DeletionVectorDescriptor] = None,
    baseRowId: Option[Long] = None,
    defaultRowCommitVersion: Option[Long] = None) extends Action

/**
 * A change data file (under `_change_data/`): rows a commit changed, each with its `_change_type`.
 * It is never part of the table's state; a change-feed reader takes a commit's changes from its
 * change data files when it has any.
 */
final case class AddCDCFile(path: String, partitionValues: Map[String, String], size: Long,
    tags: Map[String, String] = Map.empty) extends Action

/** Application transaction watermark (idempotent writes). */
final case class SetTransaction(appId: String, version: Long, lastUpdated: Option[Long]) extends Action

/** Named configuration owned by a feature or a user. */
final case class DomainMetadata(domain: String, configuration: String, removed: Boolean) extends Action

/** Provenance of a commit, kept as the JSON it was written with so nothing is lost. */
final case class CommitInfo(json: JsonNode) extends Action {
  private def field(name: String): Option[JsonNode] = Option(json.get(name)).filterNot(_.isNull)
  def timestamp: Option[Long] = field("timestamp").map(_.asLong)
  def inCommitTimestamp: Option[Long] = field("inCommitTimestamp").map(_.asLong)
  def operation: Option[String] = field("operation").map(_.asText)
  def readVersion: Option[Long] = field("readVersion").map(_.asLong)
  def isBlindAppend: Option[Boolean] = field("isBlindAppend").map(_.asBoolean)
  def isolationLevel: Option[String] = field("isolationLevel").map(_.asText)
  def engineInfo: Option[String] = field("engineInfo").map(_.asText)
  def userMetadata: Option[String] = field("userMetadata").map(_.asText)
  def userId: Option[String] = field("userId").map(_.asText)
  def userName: Option[String] = field("userName").map(_.asText)
  def clusterId: Option[String] = field("clusterId").map(_.asText)
  /** The named text fields of an object field (`job`, `notebook`: what Databricks records), each null when absent. */
  def textFields(name: String, keys: Seq[String]): Option[Seq[String]] = field(name).filter(_.isObject).map(node =>
    keys.map(k => Option(node.get(k)).filterNot(_.isNull).map(_.asText).orNull))
  def operationParameters: Map[String, String] = stringMap("operationParameters")
  def operationMetrics: Map[String, String] = stringMap("operationMetrics")

  private def stringMap(name: String): Map[String, String] = field(name).map { node =>
    import scala.jdk.CollectionConverters._
    node.properties().asScala.map { e =>
      e.getKey -> (if (e.getValue.isTextual) e.getValue.asText else if (e.getValue.isNull) null else e.getValue.toString)
    }.toMap
  }.getOrElse(Map.empty)
}

/** An action this engine does not interpret (cdc, checkpointMetadata, sidecar, …), kept verbatim. */
final case class UnknownAction(key: String, json: JsonNode) extends Action
