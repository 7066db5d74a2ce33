package io.silt.read

import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class SiltParquetFileFormatSpec extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false").getOrCreate()
  override def afterAll(): Unit = spark.stop()

  test("a reader planned for files without deletion vectors refuses one that has a vector, rather than read its deleted rows") {
    val format = new SiltParquetFileFormat(false, () => ScanFiles(100L, withDeletionVectors = false))
    val schema = StructType(Seq(StructField("id", LongType)))
    val read = format.buildReaderWithPartitionValues(spark, schema, new StructType(), schema, Nil, Map("returning_batch" -> "false"),
      spark.sessionState.newHadoopConf())
    val file = PartitionedFile(InternalRow.empty, SparkPath.fromPathString("/tmp/silt-no-such-file.parquet"), 0L, 10L,
      Array.empty[String], 0L, 10L, Map[String, Any](DeletedRowFilter.DescriptorKey -> "a descriptor"))
    val e = intercept[IllegalStateException](read(file))
    assert(e.getMessage.contains("has a deletion vector") && e.getMessage.contains("run it again"))
  }
}
