package io.silt.examples

import io.silt.tables.DeltaTable // was: import io.delta.tables.DeltaTable
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, lit}

/**
 * A Spark job written against Delta Lake's Scala API (`io.delta.tables`), moved to Silt by changing
 * its import: spark-submit runs it with Silt's artifact (`--packages io.silt:silt-spark_<minor>_2.13`).
 * It prints the rows and the history it made, which tests/test_jvm_api.py checks.
 */
object DeltaJob {
  def main(args: Array[String]): Unit = {
    val path = args(0)
    val spark = SparkSession.builder().appName("silt-jvm-example").getOrCreate()
    import spark.implicits._

    Seq((0L, "a"), (1L, "a"), (2L, "a"), (3L, "a")).toDF("id", "v").write.format("delta").save(path)
    val table = DeltaTable.forPath(spark, path)
    table.delete(col("id") === 0)
    table.update(col("id") === 1, Map("v" -> lit("b")))
    table.updateExpr("id = 2", Map("v" -> "'c'"))
    val updates = Seq((3L, "m"), (4L, "n")).toDF("id", "v")
    table.as("t")
      .merge(updates.as("s"), col("t.id") === col("s.id"))
      .whenMatched(col("s.v") === "m").updateExpr(Map("v" -> "concat(s.v, '!')"))
      .whenNotMatched().insertAll()
      .execute()
    table.optimize().executeZOrderBy("id")

    DeltaTable.createIfNotExists(spark)
      .tableName("built")
      .addColumn("id", "BIGINT")
      .addColumn(DeltaTable.columnBuilder(spark, "n").dataType("BIGINT").generatedAlwaysAsIdentity().build())
      .execute()

    val rows = table.toDF.orderBy("id").as[(Long, String)].collect().map { case (id, v) => s"$id=$v" }
    println(s"ROWS ${rows.mkString(",")}")
    println(s"HISTORY ${table.history().orderBy("version").select("operation").as[String].collect().mkString(",")}")
    println(s"BUILT ${DeltaTable.forName(spark, "built").toDF.schema.fieldNames.mkString(",")}")
    spark.stop()
  }
}
