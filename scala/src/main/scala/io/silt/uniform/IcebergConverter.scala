package io.silt.uniform

import java.util.UUID

import scala.collection.mutable

import com.fasterxml.jackson.databind.node.ObjectNode
import io.silt.actions.{AddFile, RemoveFile, TablePaths}
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.internal.Logging

/**
 * Brings a table's Iceberg metadata up to a committed Delta version. The Delta log is the one source of truth:
 * the Iceberg snapshot is derived from it after the Delta commit, never instead of it. A conversion reads the
 * newest Iceberg metadata and the Delta commits since the version it records (`delta-version`), rewrites only
 * the manifests holding files those commits removed, adds one manifest of their new files and reuses the others;
 * when the commits are gone, too many, the partitioning changed, or the result does not hold the Delta version's
 * file count, it writes the version's whole file list instead. Manifests are merged when there are many.
 */
object IcebergConverter extends Logging {
  /** Delta commits converted one by one at most; further behind, the version's file list is written whole. */
  val MaxCommitsToConvert = 100
  /** Manifests a snapshot may name before the small ones are merged into one (Iceberg's default). */
  val MinManifestsToMerge = 100
  /** A manifest this large is not merged (Iceberg's default target size). */
  val TargetManifestBytes: Long = 8L * 1024 * 1024
  /** Snapshots the metadata keeps at most: Iceberg time travel reaches the last this many Delta versions. */
  val MaxSnapshots = 100
  /** Metadata files the metadata log names, and that stay (Iceberg's write.metadata.previous-versions-max). */
  val PreviousVersionsMax = 100
  /** Entries per manifest when a whole file list is written. */
  val EntriesPerManifest = 100000

  /**
   * Converts `snapshot` (a committed version of `log`'s table); returns the Iceberg metadata version written,
   * None when the metadata already holds that version or a concurrent conversion wrote the next one first.
   */
  def convert(log: TableLog, snapshot: Snapshot, timeZone: String): Option[Int] = {
    val tablePath = log.tablePath
    val fs = log.store.fs(tablePath)
    val previous = IcebergMetadataFiles.latest(log)
    val convertedVersion = previous.flatMap(_._2.properties.get(IcebergTableMetadata.DeltaVersionKey))
      .flatMap(v => scala.util.Try(v.toLong).toOption)
    if (convertedVersion.exists(_ >= snapshot.version)) return None

    val metadata = snapshot.metadata
    val schema = IcebergSchema.of(tablePath.toString, metadata.schema)
    val files = new IcebergFiles(tablePath, metadata, schema, timeZone)
    val prior = previous.map(_._2)

    val (schemas, schemaId) = prior match {
      case Some(m) if m.schema(m.currentSchemaId).exists(schema.sameFields) => (m.schemas, m.currentSchemaId)
      case Some(m) =>
        val id = m.schemas.map(_.get("schema-id").asInt).max + 1
        (m.schemas :+ schema.withId(id), id)
      case None => (Seq(schema.withId(0)), 0)
    }
    val sameSpec = prior.flatMap(m => m.spec(m.defaultSpecId)).filter(s => sourceIds(s) == files.specSourceIds)
    val (specs, spec) = (prior, sameSpec) match {
      case (Some(m), Some(s)) =>
        (m.specs, files.spec(m.defaultSpecId, firstFieldId(s)))
      case (Some(m), None) =>
        val id = m.specs.map(_.get("spec-id").asInt).max + 1
        val sp = files.spec(id, m.lastPartitionId + 1)
        (m.specs :+ specNode(sp), sp)
      case (None, _) =>
        val sp = files.spec(0, 1000)
        (Seq(specNode(sp)), sp)
    }
    // Snapshots older than Delta Lake's limit for them go (min(log retention, deleted-file retention)): an older
    // version's files may be gone. Past the newest MaxSnapshots, they go too: every reader reads the whole list
    // to plan, and each metadata file holds it. The new snapshot, current, always stays.
    val props = TableProperties(metadata.configuration)
    val maxAgeMs = math.min(props.logRetentionMs, props.deletedFileRetentionMs)
    val kept = prior.map(_.snapshots).getOrElse(Nil).filter(_.timestampMs >= snapshot.timestamp - maxAgeMs)
      .takeRight(MaxSnapshots - 1)
    val tableSchemaJson = schema.withId(schemaId).toString
    val snapshotId = newSnapshotId(prior)
    val sequenceNumber = prior.map(_.lastSequenceNumber).getOrElse(0L) + 1
    val parent = prior.flatMap(_.currentSnapshot)
    val writer = new ManifestWriter(fs, tablePath, spec, tableSchemaJson, schemaId, snapshotId, sequenceNumber)

    val commits = for {
      from <- convertedVersion.map(_ + 1)
      if sameSpec.isDefined && parent.isDefined && snapshot.version - from < MaxCommitsToConvert
      actions <- readCommits(log, from, snapshot.version)
    } yield actions
    val incremental = commits.flatMap { actions =>
      val result = applyCommits(fs, writer, files, parent.get, actions)
      val live = result.manifests.map(_.liveFiles.toLong).sum
      if (live == snapshot.numFiles) Some(result)
      else {
        logWarning(s"Silt: the Iceberg metadata of $tablePath held $live files after converting versions up to " +
          s"${snapshot.version}, whose Delta state has ${snapshot.numFiles}: writing the version's whole file list")
        None
      }
    }
    val result = incremental.getOrElse(rebuild(writer, files, snapshot))
    val manifests = merge(writer, result.manifests)

    val manifestList = new Path(IcebergMetadataFiles.folder(tablePath), s"snap-$snapshotId-1-${UUID.randomUUID()}.avro")
    IcebergManifests.writeManifestList(fs, manifestList, snapshotId, parent.map(_.id), sequenceNumber, manifests)
    val totalFiles = manifests.map(_.liveFiles.toLong).sum
    val totalRecords = manifests.map(m => m.addedRows + m.existingRows).sum
    val deltaProps = Map(
      IcebergTableMetadata.DeltaVersionKey -> snapshot.version.toString,
      IcebergTableMetadata.DeltaTimestampKey -> snapshot.timestamp.toString)
    val summary = Map(
      "operation" -> result.operation,
      "added-data-files" -> result.addedFiles.toString,
      "deleted-data-files" -> result.deletedFiles.toString,
      "added-records" -> result.addedRecords.toString,
      "deleted-records" -> result.deletedRecords.toString,
      "total-data-files" -> totalFiles.toString,
      "total-records" -> totalRecords.toString,
      "total-delete-files" -> "0",
      "total-position-deletes" -> "0",
      "total-equality-deletes" -> "0") ++ deltaProps
    val now = math.max(snapshot.timestamp, prior.map(_.lastUpdatedMs).getOrElse(0L))
    val newSnapshot = IcebergSnapshot(snapshotId, parent.map(_.id), sequenceNumber, now, fs.makeQualified(manifestList)
      .toString, summary, schemaId)
    val version = previous.map(_._1 + 1).getOrElse(1)
    val properties = prior.map(_.properties).getOrElse(Map.empty) ++ deltaProps ++ Map(
      IcebergTableMetadata.ConvertedVersionKey -> snapshot.version.toString,
      IcebergTableMetadata.ConvertedTimestampKey -> snapshot.timestamp.toString,
      IcebergTableMetadata.NameMappingKey -> schema.nameMapping.toString)
    val table = IcebergTableMetadata(
      uuid = prior.map(_.uuid).getOrElse(metadata.id),
      location = fs.makeQualified(tablePath).toString,
      lastSequenceNumber = sequenceNumber,
      lastUpdatedMs = now,
      lastColumnId = math.max(prior.map(_.lastColumnId).getOrElse(0), math.max(schema.lastColumnId,
        TableProperties(metadata.configuration).get(TableProperties.ColumnMappingMaxColumnId.key)
          .flatMap(v => scala.util.Try(v.toInt).toOption).getOrElse(0))),
      schemas = schemas,
      currentSchemaId = schemaId,
      specs = specs,
      defaultSpecId = spec.specId,
      lastPartitionId = math.max(prior.map(_.lastPartitionId).getOrElse(999), spec.fields.map(_._1).foldLeft(999)(_ max _)),
      properties = properties,
      snapshots = kept :+ newSnapshot,
      currentSnapshotId = Some(snapshotId),
      snapshotLog = prior.map(_.snapshotLog).getOrElse(Nil).filter(e => kept.exists(_.id == e._2)) :+ (now -> snapshotId),
      metadataLog = (prior.map(_.metadataLog).getOrElse(Nil) ++ previous.map { case (v, m) =>
        m.lastUpdatedMs -> fs.makeQualified(IcebergMetadataFiles.metadataFile(tablePath, v)).toString
      }).takeRight(PreviousVersionsMax))
    ConversionPause.reach(tablePath)
    if (!IcebergMetadataFiles.write(log, version, table)) return None
    prior.foreach(p => removeExpired(fs, p, table, kept.headOption.orElse(Some(newSnapshot))))
    Some(version)
  }

  /**
   * Deletes what the new metadata no longer names: the manifest lists of expired snapshots, the manifests only they
   * named (a manifest is named by a run of consecutive snapshots, so those the oldest kept snapshot names are all
   * that stay), and the metadata files that left the metadata log. Best effort: what is not deleted stays unused.
   */
  private def removeExpired(fs: FileSystem, prior: IcebergTableMetadata, table: IcebergTableMetadata,
      oldestKept: Option[IcebergSnapshot]): Unit = try {
    val expired = prior.snapshots.filterNot(s => table.snapshots.exists(_.id == s.id))
    if (expired.nonEmpty) {
      val keptManifests = oldestKept.toSeq.flatMap(s => IcebergManifests.readManifestList(fs, new Path(s.manifestList)))
        .map(_.path).toSet
      expired.foreach { s =>
        val list = new Path(s.manifestList)
        if (fs.exists(list)) {
          IcebergManifests.readManifestList(fs, list).map(_.path).filterNot(keptManifests).foreach(m => fs.delete(new Path(m), false))
          fs.delete(list, false)
        }
      }
    }
    prior.metadataLog.map(_._2).filterNot(f => table.metadataLog.exists(_._2 == f)).foreach(f => fs.delete(new Path(f), false))
  } catch {
    case scala.util.control.NonFatal(e) => logWarning(s"Silt: unused Iceberg metadata of ${table.location} stays: $e")
  }

  /** What a conversion's snapshot holds: its manifests, the Iceberg operation, and its counts. */
  private final case class Converted(manifests: Seq[ManifestFile], operation: String, addedFiles: Long,
      deletedFiles: Long, addedRecords: Long, deletedRecords: Long)

  /** The actions of commits `from` to `to`, in order; None when one of them is gone from the log. */
  private def readCommits(log: TableLog, from: Long, to: Long): Option[Seq[Seq[io.silt.actions.Action]]] = {
    val listed = log.listing(from)
    if ((from to to).exists(v => listed.commit(v).isEmpty)) None
    else Some((from to to).map(log.readCommit))
  }

  /** The snapshot of `parent` with the commits' changes: manifests holding removed files rewritten, the others kept. */
  private def applyCommits(fs: FileSystem, writer: ManifestWriter, files: IcebergFiles, parent: IcebergSnapshot,
      commits: Seq[Seq[io.silt.actions.Action]]): Converted = {
    val adds = mutable.LinkedHashMap.empty[String, AddFile]
    val firstAdded = mutable.Set.empty[String]
    val removed = mutable.Set.empty[String]
    var dataChange = false
    commits.flatten.foreach {
      case a: AddFile =>
        val p = files.pathOf(a)
        if (!removed(p) && !adds.contains(p)) firstAdded += p
        adds(p) = a
        dataChange ||= a.dataChange
      case r: RemoveFile =>
        val p = TablePaths.absolute(writer.tablePath, r.path).toString
        adds.remove(p)
        if (!firstAdded(p)) removed += p
        dataChange ||= r.dataChange
      case _ =>
    }
    val existing = IcebergManifests.readManifestList(fs, new Path(parent.manifestList))
      .filter(_.liveFiles > 0)
    var deletedFiles, deletedRecords = 0L
    val kept = existing.map { m =>
      if (removed.isEmpty) m
      else {
        val entries = IcebergManifests.readManifest(fs, new Path(m.path), writer.spec)
        if (!entries.exists(e => e.status != EntryStatus.Deleted && removed(e.file.path))) m
        else {
          val rewritten = entries.filter(_.status != EntryStatus.Deleted).map { e =>
            if (removed(e.file.path)) {
              deletedFiles += 1
              deletedRecords += e.file.recordCount
              e.copy(status = EntryStatus.Deleted, snapshotId = writer.snapshotId)
            } else e.copy(status = EntryStatus.Existing)
          }
          writer.write(rewritten.iterator)
        }
      }
    }
    val added = adds.values.toSeq
    val addedManifest = if (added.isEmpty) None else Some(writer.write(added.iterator.map(a =>
      ManifestEntry(EntryStatus.Added, writer.snapshotId, writer.sequenceNumber, writer.sequenceNumber, files.dataFile(a)))))
    val operation =
      if (!dataChange && added.nonEmpty && deletedFiles > 0) "replace"
      else if (added.nonEmpty && deletedFiles > 0) "overwrite"
      else if (deletedFiles > 0) "delete"
      else "append"
    Converted(kept ++ addedManifest, operation, added.size, deletedFiles,
      addedManifest.map(_.addedRows).getOrElse(0L), deletedRecords)
  }

  /** A snapshot of every file of the Delta version, in new manifests. */
  private def rebuild(writer: ManifestWriter, files: IcebergFiles, snapshot: Snapshot): Converted = {
    val manifests = snapshot.files.grouped(EntriesPerManifest).map { group =>
      writer.write(group.iterator.map(a =>
        ManifestEntry(EntryStatus.Added, writer.snapshotId, writer.sequenceNumber, writer.sequenceNumber, files.dataFile(a))))
    }.toVector
    Converted(manifests, "overwrite", manifests.map(_.addedFiles.toLong).sum, 0L, manifests.map(_.addedRows).sum, 0L)
  }

  /** The manifests, with the small ones merged into one when there are more than [[MinManifestsToMerge]]. */
  private def merge(writer: ManifestWriter, manifests: Seq[ManifestFile]): Seq[ManifestFile] =
    if (manifests.size <= MinManifestsToMerge) manifests
    else {
      val (small, large) = manifests.partition(m => m.length < TargetManifestBytes && m.specId == writer.spec.specId)
      if (small.size < 2) manifests
      else {
        val entries = small.iterator.flatMap(m => IcebergManifests.readManifest(writer.fs, new Path(m.path), writer.spec))
          .filter(_.status != EntryStatus.Deleted)
          .map(e => if (e.snapshotId == writer.snapshotId) e else e.copy(status = EntryStatus.Existing))
        large :+ writer.write(entries)
      }
    }

  private def sourceIds(spec: ObjectNode): Seq[Int] = {
    val it = spec.get("fields").elements()
    val out = mutable.ArrayBuffer.empty[Int]
    while (it.hasNext) out += it.next().get("source-id").asInt
    out.toSeq
  }

  private def firstFieldId(spec: ObjectNode): Int = {
    val fields = spec.get("fields")
    if (fields.size == 0) 1000 else fields.get(0).get("field-id").asInt
  }

  private def specNode(spec: SpecFields): ObjectNode = {
    val n = IcebergSchema.nodes.objectNode()
    n.put("spec-id", spec.specId)
    n.set[com.fasterxml.jackson.databind.JsonNode]("fields", io.silt.actions.ActionCodec.mapper.readTree(spec.specJson))
    n
  }

  private def newSnapshotId(prior: Option[IcebergTableMetadata]): Long = {
    val taken = prior.map(_.snapshots.map(_.id).toSet).getOrElse(Set.empty)
    Iterator.continually(UUID.randomUUID().getMostSignificantBits & Long.MaxValue).find(id => id != 0 && !taken(id)).get
  }

  /** Writes the manifests of one snapshot, each a new file under `metadata/`. */
  private final class ManifestWriter(val fs: FileSystem, val tablePath: Path, val spec: SpecFields,
      tableSchemaJson: String, schemaId: Int, val snapshotId: Long, val sequenceNumber: Long) {
    private val prefix = UUID.randomUUID().toString
    private var n = 0

    def write(entries: Iterator[ManifestEntry]): ManifestFile = {
      val path = new Path(IcebergMetadataFiles.folder(tablePath), s"$prefix-m$n.avro")
      n += 1
      IcebergManifests.writeManifest(fs, path, spec, tableSchemaJson, schemaId, snapshotId, sequenceNumber, entries)
    }
  }
}
