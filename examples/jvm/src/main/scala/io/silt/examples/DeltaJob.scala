package io.silt.examples

import io.silt.tables.DeltaTable // was: import io.delta.tables.DeltaTable
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, expr, lit}

/**
 * A Spark job written against Delta Lake's Scala API (`io.delta.tables`), following the Scala
 * examples of Delta Lake's guide (quick start, updates and MERGE, utilities, change data feed,
 * builders), moved to Silt by changing its import. spark-submit runs it on Silt's artifact, and the
 * same source with the import put back (`// was:`) on the reference Delta Lake; tests/test_jvm_api.py
 * requires both to print the same lines.
 */
object DeltaJob {
  def main(args: Array[String]): Unit = {
    val root = args(0)
    val spark = SparkSession.builder().appName("silt-jvm-example").getOrCreate()
    import spark.implicits._
    def text(value: Any): String = value match {
      case s: scala.collection.Seq[_] => s.map(text).mkString("[", ";", "]")
      case v => String.valueOf(v)
    }
    def show(key: String, df: DataFrame): Unit =
      println(s"$key ${df.collect().map(_.toSeq.map(text).mkString(":")).sorted.mkString(",")}")

    // Quick start: create, overwrite, conditional updates, merge, time travel.
    val path = s"$root/quickstart"
    spark.range(0, 5).write.format("delta").save(path)
    spark.range(5, 10).write.format("delta").mode("overwrite").save(path)
    val deltaTable = DeltaTable.forPath(path)
    deltaTable.update(condition = expr("id % 2 == 0"), set = Map("id" -> expr("id + 100")))
    deltaTable.delete(condition = expr("id % 2 == 0"))
    val newData = spark.range(0, 20).toDF
    deltaTable.as("oldData")
      .merge(newData.as("newData"), "oldData.id = newData.id")
      .whenMatched.update(Map("id" -> col("newData.id")))
      .whenNotMatched.insert(Map("id" -> col("newData.id")))
      .execute()
    show("QUICKSTART", deltaTable.toDF)
    show("VERSION0", spark.read.format("delta").option("versionAsOf", 0).load(path))

    // Updates and MERGE with Columns and SQL strings, a change data feed, OPTIMIZE.
    val events = s"$root/events"
    Seq((0L, "a"), (1L, "a"), (2L, "a"), (3L, "a")).toDF("id", "v").write.format("delta").save(events)
    spark.sql(s"ALTER TABLE delta.`$events` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    val table = DeltaTable.forPath(spark, events)
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
    show("ROWS", table.toDF)
    show("CHANGES", spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 2)
      .load(events).select("id", "v", "_change_type", "_commit_version"))
    show("OPTIMIZED", table.history(1).select("operation", "operationParameters.zOrderBy"))

    // Utilities: restore, vacuum, history, detail, clone, convert.
    table.restoreToVersion(1)
    // A new handle: on Delta Lake, a DeltaTable whose rows were read keeps showing (and cloning) the
    // version it read (delta-io/delta#152); Silt's shows the table as it is now.
    val restored = DeltaTable.forPath(spark, events)
    show("RESTORED", restored.toDF)
    restored.vacuum()
    restored.vacuum(200)
    println(s"HISTORY ${restored.history().orderBy("version").select("operation").as[String].collect().mkString(",")}")
    show("DETAIL", restored.detail().select("format", "partitionColumns"))
    val copy = restored.clone(s"$root/copy", isShallow = true)
    show("CLONE", copy.toDF)
    val parquet = s"$root/parquet"
    Seq((1L, 10), (2L, 20)).toDF("id", "part").write.partitionBy("part").parquet(parquet)
    println(s"IS_DELTA ${DeltaTable.isDeltaTable(spark, parquet)}")
    val converted = DeltaTable.convertToDelta(spark, s"parquet.`$parquet`", "part int")
    println(s"IS_DELTA ${DeltaTable.isDeltaTable(spark, parquet)}")
    show("CONVERTED", converted.toDF)

    // Builders: a table created by name, with an identity column.
    DeltaTable.createIfNotExists(spark)
      .tableName("built")
      .addColumn("id", "BIGINT")
      .addColumn(DeltaTable.columnBuilder(spark, "n").dataType("BIGINT").generatedAlwaysAsIdentity().build())
      .execute()
    spark.sql("INSERT INTO built (id) VALUES (7), (8)")
    println(s"BUILT ${DeltaTable.forName(spark, "built").toDF.schema.fieldNames.mkString(",")}")
    show("BUILT_ROWS", DeltaTable.forName(spark, "built").toDF)
    spark.stop()
  }
}
