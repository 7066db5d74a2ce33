package io.silt.shims

import org.apache.spark.sql.types.{DataType, VariantType}

/** The data types of Spark 4 that Spark 3.5 lacks. */
object SparkTypes {
  val variant: Option[DataType] = Some(VariantType)
}
