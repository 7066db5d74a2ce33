package io.silt.shims

import org.apache.spark.sql.types.{ByteType, DataType, IntegerType, ShortType}

/**
 * The type widenings Spark 3.5's Parquet readers apply to values a file holds in a narrower type: among
 * byte, short and int alone (one Parquet type holds all three). Wider widenings came with Spark 4.0.
 */
object ParquetWidening {
  private val SameParquetType: Set[DataType] = Set(ByteType, ShortType, IntegerType)

  def readable(from: DataType, to: DataType): Boolean = SameParquetType(from) && SameParquetType(to)

  val limits: String = "Spark 3.5's Parquet reader widens byte, short and int to one another only (not to bigint, " +
    "decimal or double, float to double or date to timestamp_ntz); read and change this table on Spark 4.0 or later"
}
