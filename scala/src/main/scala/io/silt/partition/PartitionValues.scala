package io.silt.partition

import io.silt.actions.AddFile
import io.silt.features.ColumnMapping
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, EqualTo, Expression, If, Literal}
import org.apache.spark.sql.types.{DataType, StringType, StructType, TimestampType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The one decoder of the log's partition values (strings) into typed values: an empty string is
 * null for every type but STRING, and a value that does not cast is null in a checkpoint's typed
 * column and an error where a reader needs the value.
 */
object PartitionValues {

  /** The typed value of a partition value string `raw` (an expression of type STRING). */
  def decode(raw: Expression, dataType: DataType, timeZone: String): Expression = dataType match {
    case StringType => raw
    case _ => If(EqualTo(raw, Literal("")), Literal(null, dataType),
      Cast(raw, dataType, Some(timeZone), evalMode = EvalMode.TRY))
  }

  /** A partition value string of the log as Spark's internal value of `dataType`. */
  def parse(raw: String, dataType: DataType, timeZone: String): Any = {
    if (raw == null) return null
    val v = decode(Literal(UTF8String.fromString(raw)), dataType, timeZone).eval()
    if (v == null && raw.nonEmpty) {
      throw new IllegalArgumentException(s"partition value '$raw' is not a valid ${dataType.simpleString}")
    }
    v
  }

  /**
   * The typed partition values of a file as a row of `partitionSchema`, the table's (its fields'
   * physical names are the keys under column mapping; matched case-insensitively).
   */
  def rowOf(add: AddFile, partitionSchema: StructType, timeZone: String): InternalRow =
    rowOf(add.partitionValues, partitionSchema, timeZone)

  /** The row of a file's raw partition values (keyed by physical name), as [[rowOf]] of its add. */
  def rowOf(partitionValues: Map[String, String], partitionSchema: StructType, timeZone: String): InternalRow = {
    val values = partitionSchema.fields.map { f =>
      val key = ColumnMapping.physicalName(f)
      val raw = partitionValues.find(_._1.equalsIgnoreCase(key)).map(_._2).orNull
      parse(raw, f.dataType, timeZone)
    }
    InternalRow.fromSeq(values.toSeq)
  }

  /**
   * A file's partition values as partitions are compared (a dynamic overwrite's, a conflict's): keys
   * lower-cased, each value decoded by its column's type and written again in one form, so that
   * the forms writers use for one value (`2024-01-02 03:04:05` in the session's zone and
   * `2024-01-02T03:04:05.000000Z`, `1` and `01`) are one partition. A value that does not decode
   * stays as written.
   */
  final class Comparable(partitionSchema: StructType, timeZone: String) {
    private val types: Map[String, DataType] =
      partitionSchema.fields.map(f => ColumnMapping.physicalName(f).toLowerCase -> f.dataType).toMap
    // Few distinct values stand for many files: each is decoded once.
    private val seen = scala.collection.mutable.HashMap.empty[(String, String), String]

    def apply(values: Map[String, String]): Map[String, String] = values.map { case (k, v) =>
      val key = k.toLowerCase
      key -> (types.get(key) match {
        case Some(dt) if dt != StringType && v != null => seen.getOrElseUpdate((key, v), canonical(v, dt))
        case _ => v
      })
    }

    private def canonical(raw: String, dataType: DataType): String =
      scala.util.Try(parse(raw, dataType, timeZone)).toOption.map {
        case null => null
        case typed => Cast(Literal(typed, dataType), StringType, Some("UTC")).eval().toString
      }.getOrElse(raw)
  }

  /**
   * A timestamp partition value as Delta Lake writes it (`spark.databricks.delta.write.utcTimestampPartitionValues`):
   * the instant in UTC, ISO 8601 with microseconds (`2024-01-02T03:04:05.000000Z`), from a value in
   * the session's zone as Spark names partition folders.
   */
  def utcTimestamp(raw: String, timeZone: String): String = if (raw == null || raw.isEmpty) raw else {
    val micros = parse(raw, TimestampType, timeZone).asInstanceOf[Long]
    val instant = java.time.Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS)
    UtcIso.format(instant)
  }
  private val UtcIso = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
    .withZone(java.time.ZoneOffset.UTC)
}
