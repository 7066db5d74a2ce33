package io.silt.errors

import org.apache.spark.SparkThrowable

/** A SparkThrowable with an error condition, the name Spark 4 asks for (and its error class, Spark 3.5's). */
trait ThrowableWithCondition extends SparkThrowable {
  /** The error condition (Delta's error class, where Delta has one). */
  protected def conditionName: String

  override def getCondition: String = conditionName
}
