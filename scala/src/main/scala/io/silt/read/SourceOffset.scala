package io.silt.read

import com.fasterxml.jackson.databind.JsonNode
import io.silt.errors.{InvalidTableOperationException, SourceTableReplacedException}
import io.silt.actions.ActionCodec
import org.apache.spark.sql.connector.read.streaming.{Offset => OffsetV2}
import org.apache.spark.sql.execution.streaming.Offset

/**
 * How far a streaming read of a table has gone: the files of `version` up to and including the one
 * at `index` ([[SourceOffset.BaseIndex]]: none of them yet), every earlier version entirely. In the
 * initial snapshot (`isInitialSnapshot`), the files are those of the snapshot at `version`, in
 * [[StreamingSource]]'s order; a version's files otherwise are those its commit adds with data.
 */
final case class SourceOffset(tableId: String, version: Long, index: Long, isInitialSnapshot: Boolean) extends Offset {
  override val json: String = {
    val node = ActionCodec.mapper.createObjectNode()
    node.put("sourceVersion", SourceOffset.FormatVersion).put("tableId", tableId).put("version", version)
      .put("index", index).put("isInitialSnapshot", isInitialSnapshot)
    ActionCodec.mapper.writeValueAsString(node)
  }

  /** The position before the first file of the next version. */
  def nextVersion: SourceOffset = SourceOffset(tableId, version + 1, SourceOffset.BaseIndex, isInitialSnapshot = false)
}

object SourceOffset {
  val FormatVersion = 1
  /** The index before a version's first file. */
  val BaseIndex: Long = -1L
  /** Delta Lake's index after a version's last file. */
  private val DeltaEndIndex = Long.MaxValue

  /**
   * An offset Spark hands back (from its offset log, or this source's own), checked to belong to
   * the table `tableId`. Delta Lake's source writes offsets of its own shape with the same meaning
   * (its files of a commit are that commit's adds with data, in order; those of its initial
   * snapshot sorted by modification time and path), so a stream moved from Delta Lake to Silt goes
   * on from its checkpoint; only Delta's schema-tracking marks are refused, saying how to go on.
   */
  def of(offset: OffsetV2, tableId: String, tablePath: String): SourceOffset = {
    val parsed = offset match {
      case o: SourceOffset => o
      case other => parse(other.json(), tablePath)
    }
    requireTable(tableId, parsed.tableId, tablePath)
    parsed
  }

  /** Fails when the table at the path (`found`) is not the one the stream reads (`expected`). */
  def requireTable(found: String, expected: String, tablePath: String): Unit = if (found != expected) {
    throw new SourceTableReplacedException(tablePath, s"the stream reads table id $expected, but the table at " +
      s"$tablePath now has id $found: it was deleted and created again. Start the stream with a new checkpoint location")
  }

  private def parse(json: String, tablePath: String): SourceOffset = {
    val node = try ActionCodec.mapper.readTree(json) catch {
      case e: Exception => throw new InvalidTableOperationException(s"stream offset '$json' for $tablePath is not JSON", e)
    }
    def field(name: String): Option[JsonNode] = Option(node.get(name)).filterNot(_.isNull)
    def long(name: String) = field(name).filter(_.canConvertToLong).map(_.asLong)
    val sourceVersion = long("sourceVersion")
    (field("tableId"), field("reservoirId")) match {
      case (Some(id), _) if sourceVersion.contains(FormatVersion.toLong) && long("version").isDefined &&
          long("index").isDefined =>
        SourceOffset(id.asText, long("version").get, long("index").get,
          field("isInitialSnapshot").exists(_.asBoolean))
      case (None, Some(id)) if sourceVersion.exists(v => v >= 1 && v <= 3) && long("reservoirVersion").isDefined &&
          long("index").exists(i => i >= BaseIndex) =>
        val version = long("reservoirVersion").get
        long("index").get match {
          case DeltaEndIndex => SourceOffset(id.asText, version + 1, BaseIndex, isInitialSnapshot = false)
          case index => SourceOffset(id.asText, version, index, field("isStartingVersion").exists(_.asBoolean))
        }
      case (None, Some(_)) =>
        throw new InvalidTableOperationException(s"the stream's checkpoint holds Delta Lake's offset $json for " +
          s"$tablePath, which Silt cannot go on from (a mark of Delta's schema tracking). Start the stream with a " +
          "new checkpoint location and the read option startingVersion set to the version after the last one the " +
          "old stream processed completely")
      case _ =>
        throw new InvalidTableOperationException(s"stream offset $json for $tablePath is not an offset of a Silt " +
          s"source (format version $FormatVersion): start the stream with a new checkpoint location")
    }
  }

  /** Parses what [[SourceOffset.json]] wrote (the start a source keeps in its checkpoint). */
  def fromJson(json: String, tablePath: String): SourceOffset = parse(json, tablePath)
}
