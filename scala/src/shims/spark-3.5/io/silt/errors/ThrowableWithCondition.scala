package io.silt.errors

import org.apache.spark.SparkThrowable

/** A SparkThrowable with an error condition: Spark 3.5 asks only for its error class. */
trait ThrowableWithCondition extends SparkThrowable {
  /** The error condition (Delta's error class, where Delta has one). */
  protected def conditionName: String
}
