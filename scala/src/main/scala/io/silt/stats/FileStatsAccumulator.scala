package io.silt.stats

import java.time.{Instant, LocalDate, LocalDateTime, ZoneOffset}
import java.time.format.DateTimeFormatter

import com.fasterxml.jackson.databind.node.{JsonNodeFactory, ObjectNode}
import io.silt.actions.ActionCodec
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Statistics of one data file, accumulated row by row as the file is written: numRecords and,
 * per indexed leaf column, min, max and null count. Rendered as the JSON of `add.stats`.
 */
final class FileStatsAccumulator(columns: IndexedSeq[StatsColumn]) {
  private val n = columns.length
  private var numRecords = 0L
  private val nullCounts = new Array[Long](n)
  private val mins = new Array[Any](n)
  private val maxs = new Array[Any](n)
  private val noMinMax = new Array[Boolean](n) // a NaN or infinity makes bounds unrepresentable
  private val kinds = columns.map(c => FileStatsAccumulator.kindOf(c.dataType)).toArray
  private val unknownNulls = new Array[Boolean](n) // a summary without a null count: none is written

  /**
   * Adds `rows` rows known only by a summary (a Parquet footer's), one per column: its null count
   * and bounds in this accumulator's terms (Long for integral, date and timestamp columns, Double,
   * Decimal, UTF8String); None where the summary does not know them.
   */
  def addSummary(rows: Long, summaries: IndexedSeq[ColumnSummary]): Unit = {
    require(summaries.length == n, s"${summaries.length} summaries for $n columns")
    numRecords += rows
    var i = 0
    while (i < n) {
      val s = summaries(i)
      s.nullCount match {
        case Some(c) => nullCounts(i) += c
        case None => unknownNulls(i) = true
      }
      val allNull = s.nullCount.contains(rows)
      if (!allNull && kinds(i) != FileStatsAccumulator.NoBounds && !noMinMax(i)) {
        (s.min, s.max) match {
          case (Some(lo), Some(hi)) => bound(i, lo, hi)
          case _ => noMinMax(i) = true; mins(i) = null; maxs(i) = null
        }
      }
      i += 1
    }
  }

  private def bound(i: Int, lo: Any, hi: Any): Unit = kinds(i) match {
    case FileStatsAccumulator.Integral =>
      if (mins(i) == null || lo.asInstanceOf[Long] < mins(i).asInstanceOf[Long]) mins(i) = lo
      if (maxs(i) == null || hi.asInstanceOf[Long] > maxs(i).asInstanceOf[Long]) maxs(i) = hi
    case FileStatsAccumulator.Fractional =>
      if (mins(i) == null || lo.asInstanceOf[Double] < mins(i).asInstanceOf[Double]) mins(i) = lo
      if (maxs(i) == null || hi.asInstanceOf[Double] > maxs(i).asInstanceOf[Double]) maxs(i) = hi
    case FileStatsAccumulator.Dec =>
      if (mins(i) == null || lo.asInstanceOf[Decimal].compare(mins(i).asInstanceOf[Decimal]) < 0) mins(i) = lo
      if (maxs(i) == null || hi.asInstanceOf[Decimal].compare(maxs(i).asInstanceOf[Decimal]) > 0) maxs(i) = hi
    case FileStatsAccumulator.Str =>
      if (mins(i) == null || lo.asInstanceOf[UTF8String].compareTo(mins(i).asInstanceOf[UTF8String]) < 0) mins(i) = lo
      if (maxs(i) == null || hi.asInstanceOf[UTF8String].compareTo(maxs(i).asInstanceOf[UTF8String]) > 0) maxs(i) = hi
    case _ =>
  }

  def update(row: InternalRow): Unit = {
    numRecords += 1
    var i = 0
    while (i < n) {
      val c = columns(i)
      var r = row
      var k = 0
      while (r != null && k < c.ordinals.length - 1) {
        r = if (r.isNullAt(c.ordinals(k))) null else r.getStruct(c.ordinals(k), c.structSizes(k))
        k += 1
      }
      val o = c.ordinals.last
      if (r == null || r.isNullAt(o)) nullCounts(i) += 1
      else if (kinds(i) != FileStatsAccumulator.NoBounds && !noMinMax(i)) observe(i, r, o)
      i += 1
    }
  }

  private def observe(i: Int, r: InternalRow, o: Int): Unit = kinds(i) match {
    case FileStatsAccumulator.Integral =>
      val v: Long = columns(i).dataType match {
        case ByteType => r.getByte(o).toLong
        case ShortType => r.getShort(o).toLong
        case IntegerType | DateType => r.getInt(o).toLong
        case _ => r.getLong(o)
      }
      if (mins(i) == null || v < mins(i).asInstanceOf[Long]) mins(i) = v
      if (maxs(i) == null || v > maxs(i).asInstanceOf[Long]) maxs(i) = v
    case FileStatsAccumulator.Fractional =>
      val v = if (columns(i).dataType == FloatType) r.getFloat(o).toDouble else r.getDouble(o)
      if (v.isNaN || v.isInfinite) { noMinMax(i) = true; mins(i) = null; maxs(i) = null }
      else {
        if (mins(i) == null || v < mins(i).asInstanceOf[Double]) mins(i) = v
        if (maxs(i) == null || v > maxs(i).asInstanceOf[Double]) maxs(i) = v
      }
    case FileStatsAccumulator.Dec =>
      val dt = columns(i).dataType.asInstanceOf[DecimalType]
      val v = r.getDecimal(o, dt.precision, dt.scale)
      if (mins(i) == null || v.compare(mins(i).asInstanceOf[Decimal]) < 0) mins(i) = v.clone()
      if (maxs(i) == null || v.compare(maxs(i).asInstanceOf[Decimal]) > 0) maxs(i) = v.clone()
    case FileStatsAccumulator.Str =>
      val v = r.getUTF8String(o)
      if (mins(i) == null || v.compareTo(mins(i).asInstanceOf[UTF8String]) < 0) mins(i) = v.copy()
      if (maxs(i) == null || v.compareTo(maxs(i).asInstanceOf[UTF8String]) > 0) maxs(i) = v.copy()
    case _ =>
  }

  def toJson: String = {
    val nodes = JsonNodeFactory.instance
    val root = nodes.objectNode()
    root.put("numRecords", numRecords)
    val minNode = root.putObject("minValues")
    val maxNode = root.putObject("maxValues")
    val nullNode = root.putObject("nullCount")
    columns.indices.foreach { i =>
      val c = columns(i)
      if (!unknownNulls(i)) FileStatsAccumulator.put(nullNode, c.path, nodes.numberNode(nullCounts(i)))
      if (mins(i) != null) {
        FileStatsAccumulator.put(minNode, c.path, FileStatsAccumulator.render(c.dataType, mins(i), isMax = false))
        FileStatsAccumulator.put(maxNode, c.path, FileStatsAccumulator.render(c.dataType, maxs(i), isMax = true))
      }
    }
    ActionCodec.mapper.writeValueAsString(root)
  }
}

/** What a summary (a Parquet footer) knows of one column of a file: null count and bounds, where known. */
final case class ColumnSummary(nullCount: Option[Long], min: Option[Any], max: Option[Any])

object FileStatsAccumulator {
  private val NoBounds = 0
  private val Integral = 1
  private val Fractional = 2
  private val Dec = 3
  private val Str = 4
  /** Strings longer than this keep a prefix in the statistics, as Delta does. */
  val StringPrefixLength = 32
  private val nodes = JsonNodeFactory.instance
  private val TimestampFormat = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS")

  private def kindOf(dt: DataType): Int = dt match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => Integral
    case FloatType | DoubleType => Fractional
    case _: DecimalType => Dec
    case StringType => Str
    case _ => NoBounds
  }

  private def put(root: ObjectNode, path: Seq[String], value: com.fasterxml.jackson.databind.JsonNode): Unit = {
    var node = root
    path.init.foreach { p =>
      node = Option(node.get(p)).collect { case o: ObjectNode => o }.getOrElse(node.putObject(p))
    }
    node.set[com.fasterxml.jackson.databind.JsonNode](path.last, value)
  }

  /**
   * A bound as JSON. Timestamps are kept to milliseconds (what other Delta readers expect), so a
   * max is rounded up; a long string keeps a prefix, and a max prefix gets a tie-breaker that
   * sorts after any continuation.
   */
  private def render(dt: DataType, v: Any, isMax: Boolean) = dt match {
    case DateType => nodes.textNode(LocalDate.ofEpochDay(v.asInstanceOf[Long]).toString)
    case TimestampType | TimestampNTZType =>
      val micros = v.asInstanceOf[Long]
      val millis = if (isMax) Math.floorDiv(micros + 999, 1000) else Math.floorDiv(micros, 1000)
      val local = LocalDateTime.ofInstant(Instant.ofEpochMilli(millis), ZoneOffset.UTC)
      nodes.textNode(TimestampFormat.format(local) + (if (dt == TimestampType) "Z" else ""))
    case ByteType | ShortType | IntegerType | LongType => nodes.numberNode(v.asInstanceOf[Long])
    case FloatType | DoubleType => nodes.numberNode(v.asInstanceOf[Double])
    case _: DecimalType => nodes.numberNode(v.asInstanceOf[Decimal].toJavaBigDecimal)
    case StringType =>
      val s = v.asInstanceOf[UTF8String].toString
      nodes.textNode(truncate(s, isMax))
    case other => throw new IllegalArgumentException(s"no bounds for $other")
  }

  def truncate(s: String, isMax: Boolean): String = {
    if (s.codePointCount(0, s.length) <= StringPrefixLength) s
    else {
      val prefix = s.substring(0, s.offsetByCodePoints(0, StringPrefixLength))
      if (isMax) prefix + new String(Character.toChars(Character.MAX_CODE_POINT)) else prefix
    }
  }
}
