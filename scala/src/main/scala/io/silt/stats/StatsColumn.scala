package io.silt.stats

import io.silt.actions.Metadata
import io.silt.features.{ColumnMapping, TableProperties}
import org.apache.spark.sql.types._

/** A leaf column that gets statistics: its name path, ordinal path (with the sizes of the structs entered) and type. */
final case class StatsColumn(path: Seq[String], ordinals: Seq[Int], structSizes: Seq[Int], dataType: DataType) {
  def name: String = path.mkString(".")

  /** Whether min/max are kept for this type (null counts are kept for every leaf). */
  def hasMinMax: Boolean = StatsColumn.hasMinMax(dataType)
}

object StatsColumn {
  def hasMinMax(dt: DataType): Boolean = dt match {
    case _: NumericType | DateType | TimestampType | TimestampNTZType | StringType => true
    case _ => false
  }

  /**
   * The leaf columns of `dataSchema` that get statistics: the first `numIndexedCols` leaves
   * (all when negative), or exactly the named ones when `statsColumns` is given
   * (`delta.dataSkippingStatsColumns`).
   */
  def indexed(dataSchema: StructType, numIndexedCols: Int, statsColumns: Option[Seq[String]]): Seq[StatsColumn] = {
    val leaves = collectLeaves(dataSchema, Nil, Nil, Nil)
    statsColumns match {
      case Some(names) =>
        val wanted = names.map(_.trim.toLowerCase).toSet
        leaves.filter(c => wanted.exists(w => c.name.toLowerCase == w || c.name.toLowerCase.startsWith(w + ".")))
      case None => if (numIndexedCols < 0) leaves else leaves.take(numIndexedCols)
    }
  }

  /**
   * The columns of `dataSchema` (logical names) that get statistics in a table with `metadata`,
   * chosen by its two table properties, named by their physical paths (the statistics' keys).
   */
  def forTable(dataSchema: StructType, metadata: Metadata): Seq[StatsColumn] = {
    val props = TableProperties(metadata.configuration)
    val mapping = ColumnMapping.of(metadata)
    indexed(dataSchema, props.dataSkippingNumIndexedCols, props.dataSkippingStatsColumns)
      .map(c => c.copy(path = mapping.physicalPath(c.path).getOrElse(c.path)))
  }

  private def collectLeaves(s: StructType, names: Seq[String], ords: Seq[Int], sizes: Seq[Int]): Seq[StatsColumn] =
    s.fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
      f.dataType match {
        case inner: StructType => collectLeaves(inner, names :+ f.name, ords :+ i, sizes :+ inner.length)
        case _: ArrayType | _: MapType => Nil
        case dt => Seq(StatsColumn(names :+ f.name, ords :+ i, sizes :+ s.length, dt))
      }
    }
}
