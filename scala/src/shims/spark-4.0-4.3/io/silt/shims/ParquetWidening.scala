package io.silt.shims

import org.apache.spark.sql.types.DataType

/** The type widenings Spark's Parquet readers apply to values a file holds in a narrower type: Spark 4's, all of Delta's. */
object ParquetWidening {
  def readable(from: DataType, to: DataType): Boolean = true

  /** What this Spark cannot widen, and where to go instead. */
  val limits: String = ""
}
