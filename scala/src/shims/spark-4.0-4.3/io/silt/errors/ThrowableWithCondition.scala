package io.silt.errors

import org.apache.spark.SparkThrowable

/** A SparkThrowable whose error class is its condition, the name Spark 4 asks for. */
trait ThrowableWithCondition extends SparkThrowable {
  override def getCondition: String = getErrorClass
}
