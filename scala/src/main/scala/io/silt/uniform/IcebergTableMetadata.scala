package io.silt.uniform

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.JsonNode
import com.fasterxml.jackson.databind.node.ObjectNode
import io.silt.actions.ActionCodec

/** One Iceberg snapshot as table metadata lists it. */
final case class IcebergSnapshot(id: Long, parentId: Option[Long], sequenceNumber: Long, timestampMs: Long,
    manifestList: String, summary: Map[String, String], schemaId: Int) {
  /** The Delta version this snapshot is of (Silt and Delta Lake record it in the summary). */
  def deltaVersion: Option[Long] = summary.get(IcebergTableMetadata.DeltaVersionKey).flatMap(v => scala.util.Try(v.toLong).toOption)
}

/**
 * Iceberg table metadata (format version 2), the `vN.metadata.json` of a table: schemas and partition specs as
 * their JSON, snapshots, logs and properties. Immutable; [[IcebergTableMetadata.parse]] reads what [[json]] writes.
 */
final case class IcebergTableMetadata(uuid: String, location: String, lastSequenceNumber: Long, lastUpdatedMs: Long,
    lastColumnId: Int, schemas: Seq[ObjectNode], currentSchemaId: Int, specs: Seq[ObjectNode], defaultSpecId: Int,
    lastPartitionId: Int, properties: Map[String, String], snapshots: Seq[IcebergSnapshot],
    currentSnapshotId: Option[Long], snapshotLog: Seq[(Long, Long)], metadataLog: Seq[(Long, String)]) {

  def currentSnapshot: Option[IcebergSnapshot] = currentSnapshotId.flatMap(id => snapshots.find(_.id == id))
  def spec(id: Int): Option[ObjectNode] = specs.find(_.get("spec-id").asInt == id)
  def schema(id: Int): Option[ObjectNode] = schemas.find(_.get("schema-id").asInt == id)

  def json: String = {
    val n = ActionCodec.mapper.createObjectNode()
    n.put("format-version", 2)
    n.put("table-uuid", uuid)
    n.put("location", location)
    n.put("last-sequence-number", lastSequenceNumber)
    n.put("last-updated-ms", lastUpdatedMs)
    n.put("last-column-id", lastColumnId)
    val s = n.putArray("schemas")
    schemas.foreach(x => s.add(x))
    n.put("current-schema-id", currentSchemaId)
    val p = n.putArray("partition-specs")
    specs.foreach(x => p.add(x))
    n.put("default-spec-id", defaultSpecId)
    n.put("last-partition-id", lastPartitionId)
    val props = n.putObject("properties")
    properties.toSeq.sortBy(_._1).foreach { case (k, v) => props.put(k, v) }
    currentSnapshotId.foreach(id => n.put("current-snapshot-id", id))
    if (currentSnapshotId.isEmpty) n.put("current-snapshot-id", -1L)
    val snaps = n.putArray("snapshots")
    snapshots.foreach { sn =>
      val o = snaps.addObject()
      o.put("snapshot-id", sn.id)
      sn.parentId.foreach(o.put("parent-snapshot-id", _))
      o.put("sequence-number", sn.sequenceNumber)
      o.put("timestamp-ms", sn.timestampMs)
      o.put("manifest-list", sn.manifestList)
      val summary = o.putObject("summary")
      sn.summary.toSeq.sortBy(_._1).foreach { case (k, v) => summary.put(k, v) }
      o.put("schema-id", sn.schemaId)
    }
    val refs = n.putObject("refs")
    currentSnapshotId.foreach { id =>
      val main = refs.putObject("main")
      main.put("snapshot-id", id)
      main.put("type", "branch")
    }
    val slog = n.putArray("snapshot-log")
    snapshotLog.foreach { case (ts, id) => val o = slog.addObject(); o.put("timestamp-ms", ts); o.put("snapshot-id", id) }
    val mlog = n.putArray("metadata-log")
    metadataLog.foreach { case (ts, f) => val o = mlog.addObject(); o.put("timestamp-ms", ts); o.put("metadata-file", f) }
    val orders = n.putArray("sort-orders").addObject()
    orders.put("order-id", 0)
    orders.putArray("fields")
    n.put("default-sort-order-id", 0)
    // compact, as Iceberg writes it: every reader reads the whole file to plan
    ActionCodec.mapper.writeValueAsString(n)
  }
}

object IcebergTableMetadata {
  /** The snapshot summary key of the Delta version a snapshot is of, and of that commit's time (Delta Lake's names). */
  val DeltaVersionKey = "delta-version"
  val DeltaTimestampKey = "delta-timestamp"
  /** The table properties of the latest Delta version converted, and of its commit time (Delta Lake's names). */
  val ConvertedVersionKey = "converted_delta_version"
  val ConvertedTimestampKey = "converted_delta_timestamp"
  val NameMappingKey = "schema.name-mapping.default"

  /** Parses table metadata written by [[IcebergTableMetadata.json]]; what does not parse throws. */
  def parse(text: String): IcebergTableMetadata = {
    val n = ActionCodec.mapper.readTree(text)
    def arr(key: String): Seq[JsonNode] = Option(n.get(key)).map(_.elements().asScala.toSeq).getOrElse(Nil)
    def strMap(node: JsonNode): Map[String, String] =
      Option(node).map(_.properties().asScala.map(e => e.getKey -> e.getValue.asText).toMap).getOrElse(Map.empty)
    require(n.get("format-version").asInt == 2, s"Iceberg format version ${n.get("format-version")} is not 2")
    val current = Option(n.get("current-snapshot-id")).map(_.asLong).filter(_ >= 0)
    IcebergTableMetadata(
      uuid = n.get("table-uuid").asText,
      location = n.get("location").asText,
      lastSequenceNumber = n.get("last-sequence-number").asLong,
      lastUpdatedMs = n.get("last-updated-ms").asLong,
      lastColumnId = n.get("last-column-id").asInt,
      schemas = arr("schemas").map(_.asInstanceOf[ObjectNode]),
      currentSchemaId = n.get("current-schema-id").asInt,
      specs = arr("partition-specs").map(_.asInstanceOf[ObjectNode]),
      defaultSpecId = n.get("default-spec-id").asInt,
      lastPartitionId = n.get("last-partition-id").asInt,
      properties = strMap(n.get("properties")),
      snapshots = arr("snapshots").map { s =>
        IcebergSnapshot(s.get("snapshot-id").asLong, Option(s.get("parent-snapshot-id")).map(_.asLong),
          s.get("sequence-number").asLong, s.get("timestamp-ms").asLong, s.get("manifest-list").asText,
          strMap(s.get("summary")), Option(s.get("schema-id")).map(_.asInt).getOrElse(0))
      },
      currentSnapshotId = current,
      snapshotLog = arr("snapshot-log").map(o => o.get("timestamp-ms").asLong -> o.get("snapshot-id").asLong),
      metadataLog = arr("metadata-log").map(o => o.get("timestamp-ms").asLong -> o.get("metadata-file").asText))
  }
}
