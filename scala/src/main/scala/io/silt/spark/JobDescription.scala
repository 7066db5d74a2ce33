package io.silt.spark

import org.apache.spark.sql.SparkSession

/** Names the Spark jobs a command runs, so the Spark UI (and progress bars) say what is going on. */
object JobDescription {
  def apply[T](spark: SparkSession, text: String)(body: => T): T = {
    val sc = spark.sparkContext
    val previous = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(text)
    try body finally sc.setJobDescription(previous)
  }
}
