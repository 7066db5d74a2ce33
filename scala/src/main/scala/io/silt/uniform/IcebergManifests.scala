package io.silt.uniform

import java.nio.ByteBuffer

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import io.silt.actions.ActionCodec
import org.apache.avro.{Schema => AvroSchema}
import org.apache.avro.file.{CodecFactory, DataFileStream, DataFileWriter}
import org.apache.avro.generic.{GenericData, GenericDatumReader, GenericDatumWriter, GenericRecord}
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.types.DataType

/** An Iceberg data file as a manifest holds it: its absolute path, partition tuple (Spark internal values) and metrics by field id. */
final case class IcebergDataFile(path: String, partition: Seq[Any], recordCount: Long, sizeInBytes: Long,
    valueCounts: Map[Int, Long] = Map.empty, nullCounts: Map[Int, Long] = Map.empty,
    lowerBounds: Map[Int, ByteBuffer] = Map.empty, upperBounds: Map[Int, ByteBuffer] = Map.empty)

/** An entry's status in a manifest (Iceberg's numbers). */
object EntryStatus {
  val Existing = 0
  val Added = 1
  val Deleted = 2
}

/** One manifest entry: a data file added, kept or deleted by a snapshot, with its data sequence numbers. */
final case class ManifestEntry(status: Int, snapshotId: Long, sequenceNumber: Long, fileSequenceNumber: Long,
    file: IcebergDataFile)

/** A partition field's summary over a manifest's live files (bounds in single-value form). */
final case class FieldSummary(containsNull: Boolean, lower: Option[ByteBuffer], upper: Option[ByteBuffer])

/** A manifest as a manifest list names it, with its counts. */
final case class ManifestFile(path: String, length: Long, specId: Int, sequenceNumber: Long, minSequenceNumber: Long,
    addedSnapshotId: Long, addedFiles: Int, existingFiles: Int, deletedFiles: Int, addedRows: Long,
    existingRows: Long, deletedRows: Long, partitions: Seq[FieldSummary]) {
  def liveFiles: Int = addedFiles + existingFiles
}

/** The partition spec a manifest's entries are written under: its fields' ids, names, source types, and its JSON. */
final case class SpecFields(specId: Int, fields: Seq[(Int, String, DataType)], specJson: String)

/**
 * Iceberg's manifests and manifest lists (format version 2) as Avro files: written from, and read back into,
 * [[ManifestEntry]] and [[ManifestFile]]. The schemas are the Iceberg spec's, with its field ids, names and
 * file metadata keys, which readers resolve fields by.
 */
object IcebergManifests {
  private lazy val entryTemplate: String = resource("manifest_entry.avsc")
  private lazy val manifestListSchema: AvroSchema = new AvroSchema.Parser().parse(resource("manifest_file.avsc"))

  private def resource(name: String): String = {
    val in = getClass.getResourceAsStream(s"/io/silt/uniform/$name")
    try new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8) finally in.close()
  }

  /** The manifest entry schema of `spec`: its partition record holds the spec's fields, with their field ids. */
  def entrySchema(spec: SpecFields): AvroSchema = {
    val root = ActionCodec.mapper.readTree(entryTemplate).asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]
    val partition = root.get("fields").elements().asScala.find(_.get("name").asText == "data_file").get
      .get("type").get("fields").elements().asScala.find(_.get("name").asText == "partition").get
      .get("type").asInstanceOf[com.fasterxml.jackson.databind.node.ObjectNode]
    val fields = partition.putArray("fields")
    spec.fields.foreach { case (id, name, dt) =>
      val f = fields.addObject()
      f.put("name", name)
      f.put("field-id", id)
      f.set[com.fasterxml.jackson.databind.JsonNode]("type", ActionCodec.mapper.readTree(IcebergValues.avroType(dt).toString))
      f.putNull("default")
    }
    new AvroSchema.Parser().parse(root.toString)
  }

  /** Writes a manifest of `entries` under `spec` at `path`; returns it as the manifest list will name it. */
  def writeManifest(fs: FileSystem, path: Path, spec: SpecFields, tableSchemaJson: String, schemaId: Int,
      snapshotId: Long, sequenceNumber: Long, entries: Iterator[ManifestEntry]): ManifestFile = {
    val schema = entrySchema(spec)
    val dataFileSchema = schema.getField("data_file").schema()
    val partitionSchema = dataFileSchema.getField("partition").schema()
    val writer = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema))
    writer.setCodec(CodecFactory.deflateCodec(6))
    Seq("schema" -> tableSchemaJson, "schema-id" -> schemaId.toString, "partition-spec" -> spec.specJson,
      "partition-spec-id" -> spec.specId.toString, "format-version" -> "2", "content" -> "data")
      .foreach { case (k, v) => writer.setMeta(k, v) }
    val out = fs.create(path, false)
    writer.create(schema, out)
    val counts = Array.fill(3)(0)
    val rows = Array.fill(3)(0L)
    var minSeq = Long.MaxValue
    val summaries = spec.fields.map(f => new SummaryBuilder(f._3))
    try entries.foreach { e =>
      val file = new GenericData.Record(dataFileSchema)
      file.put("content", 0)
      file.put("file_path", e.file.path)
      file.put("file_format", "PARQUET")
      val partition = new GenericData.Record(partitionSchema)
      spec.fields.zip(e.file.partition).foreach { case ((_, name, dt), v) =>
        partition.put(name, IcebergValues.avroValue(v, dt, partitionSchema.getField(name).schema()))
      }
      file.put("partition", partition)
      file.put("record_count", e.file.recordCount)
      file.put("file_size_in_bytes", e.file.sizeInBytes)
      putMap(file, "value_counts", e.file.valueCounts.map { case (k, v) => k -> Long.box(v) })
      putMap(file, "null_value_counts", e.file.nullCounts.map { case (k, v) => k -> Long.box(v) })
      putMap(file, "lower_bounds", e.file.lowerBounds)
      putMap(file, "upper_bounds", e.file.upperBounds)
      val entry = new GenericData.Record(schema)
      entry.put("status", e.status)
      entry.put("snapshot_id", e.snapshotId)
      entry.put("sequence_number", e.sequenceNumber)
      entry.put("file_sequence_number", e.fileSequenceNumber)
      entry.put("data_file", file)
      writer.append(entry)
      val i = e.status match { case EntryStatus.Added => 0; case EntryStatus.Existing => 1; case _ => 2 }
      counts(i) += 1
      rows(i) += e.file.recordCount
      if (e.status != EntryStatus.Deleted) {
        minSeq = math.min(minSeq, e.sequenceNumber)
        summaries.zip(e.file.partition).foreach { case (s, v) => s.add(v) }
      }
    } finally writer.close()
    ManifestFile(fs.makeQualified(path).toString, fs.getFileStatus(path).getLen, spec.specId, sequenceNumber,
      if (minSeq == Long.MaxValue) sequenceNumber else minSeq, snapshotId, counts(0), counts(1), counts(2), rows(0),
      rows(1), rows(2), summaries.map(_.result))
  }

  private def putMap(record: GenericData.Record, field: String, values: Map[Int, _ <: AnyRef]): Unit = if (values.nonEmpty) {
    val arraySchema = record.getSchema.getField(field).schema().getTypes.get(1)
    val pairSchema = arraySchema.getElementType
    val items = values.toSeq.sortBy(_._1).map { case (k, v) =>
      val pair = new GenericData.Record(pairSchema)
      pair.put("key", k)
      pair.put("value", v)
      pair: GenericRecord
    }
    record.put(field, new GenericData.Array[GenericRecord](arraySchema, items.asJava))
  }

  /** The entries of the manifest at `path`, partition values decoded as `spec`'s types. */
  def readManifest(fs: FileSystem, path: Path, spec: SpecFields): Seq[ManifestEntry] = {
    val in = fs.open(path)
    val stream = new DataFileStream[GenericRecord](in, new GenericDatumReader[GenericRecord]())
    try stream.iterator().asScala.map { r =>
      val file = r.get("data_file").asInstanceOf[GenericRecord]
      val partition = file.get("partition").asInstanceOf[GenericRecord]
      val dataFile = IcebergDataFile(
        path = file.get("file_path").toString,
        partition = spec.fields.map { case (_, name, dt) => IcebergValues.fromAvro(partition.get(name), dt) },
        recordCount = file.get("record_count").asInstanceOf[Long],
        sizeInBytes = file.get("file_size_in_bytes").asInstanceOf[Long],
        valueCounts = readMap(file, "value_counts").map { case (k, v) => k -> v.asInstanceOf[Long] },
        nullCounts = readMap(file, "null_value_counts").map { case (k, v) => k -> v.asInstanceOf[Long] },
        lowerBounds = readMap(file, "lower_bounds").map { case (k, v) => k -> v.asInstanceOf[ByteBuffer] },
        upperBounds = readMap(file, "upper_bounds").map { case (k, v) => k -> v.asInstanceOf[ByteBuffer] })
      ManifestEntry(r.get("status").asInstanceOf[Int], r.get("snapshot_id").asInstanceOf[Long],
        r.get("sequence_number").asInstanceOf[Long], r.get("file_sequence_number").asInstanceOf[Long], dataFile)
    }.toVector finally stream.close()
  }

  private def readMap(record: GenericRecord, field: String): Map[Int, Any] = record.get(field) match {
    case items: java.util.Collection[_] => items.asScala.map { p =>
      val pair = p.asInstanceOf[GenericRecord]
      pair.get("key").asInstanceOf[Int] -> pair.get("value")
    }.toMap
    case _ => Map.empty
  }

  /** Writes the manifest list of a snapshot at `path`. */
  def writeManifestList(fs: FileSystem, path: Path, snapshotId: Long, parentId: Option[Long], sequenceNumber: Long,
      manifests: Seq[ManifestFile]): Unit = {
    val schema = manifestListSchema
    val summarySchema = schema.getField("partitions").schema().getTypes.get(1).getElementType
    val writer = new DataFileWriter[GenericRecord](new GenericDatumWriter[GenericRecord](schema))
    writer.setCodec(CodecFactory.deflateCodec(6))
    writer.setMeta("snapshot-id", snapshotId.toString)
    writer.setMeta("parent-snapshot-id", parentId.map(_.toString).getOrElse("null"))
    writer.setMeta("sequence-number", sequenceNumber.toString)
    writer.setMeta("format-version", "2")
    writer.create(schema, fs.create(path, false))
    try manifests.foreach { m =>
      val r = new GenericData.Record(schema)
      r.put("manifest_path", m.path)
      r.put("manifest_length", m.length)
      r.put("partition_spec_id", m.specId)
      r.put("content", 0)
      r.put("sequence_number", m.sequenceNumber)
      r.put("min_sequence_number", m.minSequenceNumber)
      r.put("added_snapshot_id", m.addedSnapshotId)
      r.put("added_files_count", m.addedFiles)
      r.put("existing_files_count", m.existingFiles)
      r.put("deleted_files_count", m.deletedFiles)
      r.put("added_rows_count", m.addedRows)
      r.put("existing_rows_count", m.existingRows)
      r.put("deleted_rows_count", m.deletedRows)
      val summaries = m.partitions.map { s =>
        val rec = new GenericData.Record(summarySchema)
        rec.put("contains_null", s.containsNull)
        rec.put("lower_bound", s.lower.orNull)
        rec.put("upper_bound", s.upper.orNull)
        rec: GenericRecord
      }
      r.put("partitions", new GenericData.Array[GenericRecord](schema.getField("partitions").schema().getTypes.get(1),
        summaries.asJava))
      writer.append(r)
    } finally writer.close()
  }

  /** The manifests a manifest list names. */
  def readManifestList(fs: FileSystem, path: Path): Seq[ManifestFile] = {
    val stream = new DataFileStream[GenericRecord](fs.open(path), new GenericDatumReader[GenericRecord]())
    try stream.iterator().asScala.map { r =>
      val partitions = r.get("partitions") match {
        case items: java.util.Collection[_] => items.asScala.toSeq.map { p =>
          val s = p.asInstanceOf[GenericRecord]
          FieldSummary(s.get("contains_null").asInstanceOf[Boolean], Option(s.get("lower_bound").asInstanceOf[ByteBuffer]),
            Option(s.get("upper_bound").asInstanceOf[ByteBuffer]))
        }
        case _ => Nil
      }
      ManifestFile(r.get("manifest_path").toString, r.get("manifest_length").asInstanceOf[Long],
        r.get("partition_spec_id").asInstanceOf[Int], r.get("sequence_number").asInstanceOf[Long],
        r.get("min_sequence_number").asInstanceOf[Long], r.get("added_snapshot_id").asInstanceOf[Long],
        r.get("added_files_count").asInstanceOf[Int], r.get("existing_files_count").asInstanceOf[Int],
        r.get("deleted_files_count").asInstanceOf[Int], r.get("added_rows_count").asInstanceOf[Long],
        r.get("existing_rows_count").asInstanceOf[Long], r.get("deleted_rows_count").asInstanceOf[Long], partitions)
    }.toVector finally stream.close()
  }

  /** Collects a partition field's summary: whether a null was seen, and the least and greatest values. */
  private final class SummaryBuilder(dt: DataType) {
    private var containsNull = false
    private var min: Option[Any] = None
    private var max: Option[Any] = None
    private val ordering = org.apache.spark.sql.catalyst.types.PhysicalDataType.ordering(dt)

    def add(v: Any): Unit = if (v == null) containsNull = true else {
      if (min.forall(m => ordering.lt(v, m))) min = Some(v)
      if (max.forall(m => ordering.gt(v, m))) max = Some(v)
    }

    def result: FieldSummary = FieldSummary(containsNull, min.flatMap(IcebergValues.binary(_, dt)),
      max.flatMap(IcebergValues.binary(_, dt)))
  }
}
