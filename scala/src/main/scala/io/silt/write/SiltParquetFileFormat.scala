package io.silt.write

import org.apache.hadoop.mapreduce.Job
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.OutputWriterFactory
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.types.StructType

/**
 * Spark's Parquet format, writing timestamps as INT64 microseconds (not the legacy INT96
 * Spark defaults to) so that every Delta reader reads them.
 */
class SiltParquetFileFormat extends ParquetFileFormat {
  override def prepareWrite(spark: SparkSession, job: Job, options: Map[String, String], dataSchema: StructType): OutputWriterFactory = {
    val factory = super.prepareWrite(spark, job, options, dataSchema)
    job.getConfiguration.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    factory
  }

  override def toString: String = "Parquet"
  override def equals(other: Any): Boolean = other.isInstanceOf[SiltParquetFileFormat]
  override def hashCode(): Int = getClass.hashCode()
}
