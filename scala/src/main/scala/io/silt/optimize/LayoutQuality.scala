package io.silt.optimize

import io.silt.actions.{AddFile, Metadata}
import io.silt.stats.FileStats
import org.apache.spark.sql.types._

/**
 * How well a table's files are laid out for a column, from their statistics alone: the mean
 * share of the files that a range over 1% of the column's values overlaps (100 ranges side by
 * side over its [min, max]); a file without bounds for the column counts as read. Columns of
 * types whose values have no numeric order (strings) get no figure.
 */
object LayoutQuality {
  private val Ranges = 100

  /** The figure of each of `columns` (logical, dotted names) that has one. */
  def rangeReadFraction(files: Seq[AddFile], metadata: Metadata, columns: Seq[String]): Map[String, Double] = {
    if (files.isEmpty) return Map.empty
    val parse = FileStats.parserFor(metadata)
    val stats = files.map(a => parse(a.stats))
    columns.flatMap { c =>
      val path = c.split('.').toSeq
      typeOf(metadata.schema, path).filter(numeric).map { dt =>
        val bounds = stats.map(s => s.min(path, dt).zip(s.max(path, dt)).map { case (a, b) => (toDouble(a), toDouble(b)) })
        val known = bounds.flatten
        val fraction = if (known.isEmpty) 1.0 else {
          val lo = known.map(_._1).min
          val hi = known.map(_._2).max
          val width = (hi - lo) / Ranges
          val reads = (0 until Ranges).map { i =>
            val (start, end) = (lo + i * width, lo + (i + 1) * width)
            bounds.count(b => b.forall { case (min, max) => min <= end && max >= start })
          }
          reads.sum.toDouble / Ranges / files.size
        }
        c -> fraction
      }
    }.toMap
  }

  private def typeOf(schema: StructType, path: Seq[String]): Option[DataType] =
    schema.fields.find(_.name.equalsIgnoreCase(path.head)).flatMap { f =>
      if (path.tail.isEmpty) Some(f.dataType) else f.dataType match {
        case s: StructType => typeOf(s, path.tail)
        case _ => None
      }
    }

  private def numeric(dt: DataType): Boolean = dt match {
    case _: NumericType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  private def toDouble(v: Any): Double = v match {
    case n: java.lang.Number => n.doubleValue()
    case d: Decimal => d.toDouble
    case other => throw new IllegalArgumentException(s"not a numeric bound: $other")
  }
}
