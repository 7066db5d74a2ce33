package io.silt.expressions

import io.silt.optimizer.RangePartitionIdRewrite
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, expr}
import org.apache.spark.sql.silt.SparkInternals
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

class RangePartitionIdRewriteSpec extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false")
    .config("spark.sql.shuffle.partitions", "2")
    .withExtensions(new io.silt.SiltSparkSessionExtension).getOrCreate()

  override def afterAll(): Unit = spark.stop()

  private def rid(c: String, n: Int) = SparkInternals.column(RangePartitionId(SparkInternals.expression(col(c)), n))

  test("range ids split a column into equal-count ranges") {
    val df = spark.range(0, 10000).select(rid("id", 10).as("r"))
    val counts = df.groupBy("r").count().collect().map(r => r.getInt(0) -> r.getLong(1)).toMap
    assert(counts.keySet == (0 until 10).toSet)
    assert(counts.values.forall(c => c > 800 && c < 1200), counts)
  }

  test("the rewrite works under a filter, a join and an aggregate") {
    val left = spark.range(0, 1000).withColumn("k", col("id") % 10)
    val right = spark.range(0, 10).withColumnRenamed("id", "k2")
    val joined = left.join(right, col("k") === col("k2"))
      .where(rid("id", 4) === 3)
      .groupBy(rid("k", 2).as("half"))
      .count()
    val rows = joined.collect().map(r => r.getInt(0) -> r.getLong(1)).toMap
    assert(rows.values.sum == 250)
    assert(!joined.queryExecution.optimizedPlan.exists(_.expressions.exists(_.exists(_.isInstanceOf[RangePartitionId]))))
  }

  test("a range id over columns of both sides of a join is refused with a clear error") {
    val a = spark.range(10).withColumnRenamed("id", "a")
    val b = spark.range(10).withColumnRenamed("id", "b")
    val e = intercept[Exception] {
      a.join(b, SparkInternals.column(RangePartitionId(SparkInternals.expression(col("a") + col("b")), 4)) === 1).collect()
    }
    assert(e.getMessage.contains("must reference the columns of one input"))
  }

  test("interleave_bits and range_partition_id are SQL functions") {
    assert(spark.sql("SELECT hex(interleave_bits(97, 214))").head().getString(0) == "0000000000007916")
    val ids = spark.sql("SELECT range_partition_id(id, 5) AS r FROM range(100)").distinct().count()
    assert(ids == 5)
    assert(spark.range(3).select(expr("interleave_bits(cast(id as int))")).count() == 3)
  }
}
