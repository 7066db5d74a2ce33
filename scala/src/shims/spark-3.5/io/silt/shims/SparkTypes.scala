package io.silt.shims

import org.apache.spark.sql.types.DataType

/** The data types of Spark 4 that Spark 3.5 lacks: none of them here. */
object SparkTypes {
  val variant: Option[DataType] = None
}
