package io.silt.stats

import java.time.LocalDate

import com.fasterxml.jackson.databind.JsonNode
import io.silt.actions.{ActionCodec, Metadata}
import io.silt.features.{ColumnMapping, TypeChanges}
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * The parsed `stats` of one file, read as Spark internal values of the columns' types. Columns
 * are named by logical paths; `mapping` gives the physical paths the statistics are keyed by.
 */
final class FileStats private (json: JsonNode, mapping: ColumnMapping, looseColumns: Set[Seq[String]]) {

  def numRecords: Option[Long] = Option(json.get("numRecords")).filter(_.isNumber).map(_.asLong)

  /** False when a deletion vector made min/max loose bounds and null counts upper bounds. */
  def tightBounds: Boolean = Option(json.get("tightBounds")).forall(_.asBoolean(true))

  def nullCount(path: Seq[String]): Option[Long] = node("nullCount", path).filter(_.isNumber).map(_.asLong)

  def min(path: Seq[String], dt: DataType): Option[Any] =
    bound("minValues", path).flatMap(FileStats.value(_, dt, isMax = false))

  def max(path: Seq[String], dt: DataType): Option[Any] =
    bound("maxValues", path).flatMap(FileStats.value(_, dt, isMax = true))

  // A bound written in a type the column was since widened from may not bound the widened values.
  private def bound(section: String, path: Seq[String]): Option[JsonNode] =
    if (looseColumns.contains(path)) None else node(section, path)

  private def node(section: String, path: Seq[String]): Option[JsonNode] = {
    var n = json.get(section)
    if (n == null) return None
    mapping.physicalPath(path).getOrElse(path).foreach { p => if (n != null) n = n.get(p) }
    Option(n).filterNot(_.isNull)
  }
}

object FileStats {
  private val Empty = ActionCodec.mapper.createObjectNode()

  /** Statistics from `add.stats`; a missing or unparseable string yields no statistics. */
  def parse(stats: Option[String], mapping: ColumnMapping = ColumnMapping.Disabled,
      looseColumns: Set[Seq[String]] = Set.empty): FileStats = new FileStats(
    stats.flatMap(s => try Option(ActionCodec.mapper.readTree(s)).filter(_.isObject) catch { case _: Exception => None })
      .getOrElse(Empty), mapping, looseColumns)

  /**
   * The parser of a table's statistics: its column mapping, and no min/max for columns widened
   * from a type whose bounds do not carry over (float to double).
   */
  def parserFor(metadata: Metadata): Option[String] => FileStats = {
    val mapping = ColumnMapping.of(metadata)
    val loose = TypeChanges.all(metadata.schema).filterNot(c => TypeChanges.statsExact(c.from, c.to))
      .map(_.path.split('.').toSeq).toSet
    stats => parse(stats, mapping, loose)
  }

  /** A bound as an internal value. Millisecond timestamps widen a max by the lost microseconds. */
  private def value(n: JsonNode, dt: DataType, isMax: Boolean): Option[Any] = try {
    dt match {
      case ByteType if n.isIntegralNumber => Some(n.asInt.toByte)
      case ShortType if n.isIntegralNumber => Some(n.asInt.toShort)
      case IntegerType if n.isIntegralNumber => Some(n.asInt)
      case LongType if n.isIntegralNumber => Some(n.asLong)
      case FloatType if n.isNumber => Some(n.asDouble.toFloat)
      case DoubleType if n.isNumber => Some(n.asDouble)
      case d: DecimalType if n.isNumber =>
        val dec = Decimal(n.decimalValue())
        if (dec.changePrecision(d.precision, d.scale)) Some(dec) else None
      case DateType if n.isTextual => Some(LocalDate.parse(n.asText.take(10)).toEpochDay.toInt)
      case TimestampType | TimestampNTZType if n.isTextual =>
        Option(Cast(Literal(UTF8String.fromString(n.asText)), dt, Some("UTC")).eval())
          .map(v => v.asInstanceOf[Long] + (if (isMax) 999L else 0L))
      case StringType if n.isTextual => Some(UTF8String.fromString(n.asText))
      case _ => None
    }
  } catch { case _: Exception => None }
}
