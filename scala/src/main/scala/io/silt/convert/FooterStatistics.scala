package io.silt.convert

import scala.util.Try

import io.silt.stats.{ColumnSummary, FileStatsAccumulator, StatsColumn}
import org.apache.parquet.schema.{LogicalTypeAnnotation, MessageType, PrimitiveType}
import org.apache.parquet.schema.LogicalTypeAnnotation.{DateLogicalTypeAnnotation, IntLogicalTypeAnnotation, TimeUnit, TimestampLogicalTypeAnnotation}
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * A converted file's `add.stats`, from its footer: numRecords from the row groups, and per indexed
 * column the null count and bounds of its column chunks where Parquet recorded them. A bound is
 * kept only where the footer's value means the same as Spark's (no unsigned integers, no INT96 or
 * nanosecond timestamps); floating point bounds are left out, since a footer cannot say whether
 * the column holds NaN. A column left out costs skipping, never a wrong answer.
 */
object FooterStatistics {
  def of(summary: FooterSummary, parquetSchema: MessageType, columns: Seq[StatsColumn]): String = {
    val acc = new FileStatsAccumulator(columns.toIndexedSeq)
    val summaries = columns.map { c =>
      summary.columns.get(c.path) match {
        case None => ColumnSummary(None, None, None)
        case Some(chunk) =>
          val primitive = Try(parquetSchema.getType(c.path: _*).asPrimitiveType()).toOption
          def value(v: Option[Any]) = for (p <- primitive; x <- v; y <- Try(convert(c.dataType, p, x)).toOption.flatten) yield y
          ColumnSummary(chunk.nullCount, value(chunk.min), value(chunk.max))
      }
    }
    acc.addSummary(summary.numRows, summaries.toIndexedSeq)
    acc.toJson
  }

  /** A footer bound as the accumulator's value for `dt`, or None where the footer's order is not Spark's. */
  private def convert(dt: DataType, p: PrimitiveType, v: Any): Option[Any] = {
    val logical = Option(p.getLogicalTypeAnnotation)
    val signed = logical.forall {
      case i: IntLogicalTypeAnnotation => i.isSigned
      case _ => true
    }
    (dt, p.getPrimitiveTypeName, logical) match {
      case (ByteType | ShortType | IntegerType, INT32, _) if signed => Some(v.asInstanceOf[Integer].toLong)
      case (LongType, INT64, _) if signed => Some(v.asInstanceOf[java.lang.Long].longValue)
      case (DateType, INT32, Some(_: DateLogicalTypeAnnotation)) => Some(v.asInstanceOf[Integer].toLong)
      case (TimestampType | TimestampNTZType, INT64, Some(t: TimestampLogicalTypeAnnotation)) => t.getUnit match {
        case TimeUnit.MICROS => Some(v.asInstanceOf[java.lang.Long].longValue)
        case TimeUnit.MILLIS => Some(v.asInstanceOf[java.lang.Long].longValue * 1000L)
        case _ => None
      }
      case (d: DecimalType, INT32, _) => Some(Decimal(v.asInstanceOf[Integer].toLong, d.precision, d.scale))
      case (d: DecimalType, INT64, _) => Some(Decimal(v.asInstanceOf[java.lang.Long].longValue, d.precision, d.scale))
      case (d: DecimalType, BINARY | FIXED_LEN_BYTE_ARRAY, _) =>
        Some(Decimal(new java.math.BigDecimal(new java.math.BigInteger(v.asInstanceOf[Array[Byte]]), d.scale), d.precision, d.scale))
      case (StringType, BINARY | FIXED_LEN_BYTE_ARRAY, l) if l.forall(isText) => Some(UTF8String.fromBytes(v.asInstanceOf[Array[Byte]]))
      case _ => None
    }
  }

  private def isText(l: LogicalTypeAnnotation): Boolean =
    l.isInstanceOf[LogicalTypeAnnotation.StringLogicalTypeAnnotation] ||
      l.isInstanceOf[LogicalTypeAnnotation.EnumLogicalTypeAnnotation] ||
      l.isInstanceOf[LogicalTypeAnnotation.JsonLogicalTypeAnnotation]
}
