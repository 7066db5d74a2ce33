package io.silt.errors

import org.apache.spark.SparkThrowable

/** A SparkThrowable: Spark 3.5 asks only for its error class. */
trait ThrowableWithCondition extends SparkThrowable
