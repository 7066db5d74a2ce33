package io.silt.storage

import java.io.IOException
import java.nio.file.Files

import io.silt.checkpoint.LogCleanup
import io.silt.errors.PostCommitHookFailedException
import io.silt.log.{FileNames, TableLog}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/** What cleanup, reads and post-commit steps do when storage fails a request: keep, fail, or say so; never guess. */
class StorageFaultSpec extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = {
    val b = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "1").withExtensions(new io.silt.SiltSparkSessionExtension)
      .config("spark.sql.catalog.spark_catalog", "io.silt.catalog.SiltCatalog")
    FaultyFileSystem.conf.foldLeft(b) { case (b, (k, v)) => b.config(k, v) }.getOrCreate()
  }

  override def afterAll(): Unit = { FaultyFileSystem.reset(); spark.stop() }

  /** A new folder's table path. */
  private def faultyTable(name: String): String =
    "file://" + Files.createTempDirectory("silt-faults").resolve(name).toAbsolutePath.toString

  private def sql(s: String): Unit = spark.sql(s).collect()

  private def causes(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).toSeq

  test("log cleanup keeps every old sidecar while one kept checkpoint's sidecar list cannot be read") {
    val t = faultyTable("v2")
    sql(s"CREATE TABLE silt.`$t` (id BIGINT) USING silt TBLPROPERTIES ('delta.checkpointPolicy' = 'v2')")
    (1 to 3).foreach(i => sql(s"INSERT INTO silt.`$t` VALUES ($i)"))
    sql(s"CHECKPOINT silt.`$t`")
    val log = TableLog.forPath(spark, t)
    val sidecars = new Path(log.logPath, FileNames.SidecarDir)
    val fs = sidecars.getFileSystem(log.hadoopConf)
    val referenced = fs.listStatus(sidecars).map(_.getPath.getName).toSet
    assert(referenced.nonEmpty)
    // a sidecar no checkpoint names: what a checkpoint writer killed before its commit leaves
    val orphan = new Path(sidecars, "00000000-0000-0000-0000-000000000000.parquet")
    org.apache.hadoop.fs.FileUtil.copy(fs, fs.listStatus(sidecars).head.getPath, fs, orphan, false, log.hadoopConf)
    def names = fs.listStatus(sidecars).map(_.getPath.getName).toSet
    val later = System.currentTimeMillis() + 2 * LogCleanup.SidecarGraceMs
    val snapshot = log.latest()
    val keepCommits = Long.MaxValue / 4

    FaultyFileSystem.failing("open", """.*/_delta_log/\d+\.checkpoint\.[^/]*""") {
      LogCleanup.cleanUp(spark, log, snapshot, keepCommits, later)
      assert(FaultyFileSystem.failures > 0)
    }
    assert(names == referenced + orphan.getName)

    LogCleanup.cleanUp(spark, log, snapshot, keepCommits, later)
    assert(names == referenced)
    TableLog.forget(spark, t)
    assert(spark.read.format("silt").load(t).count() == 3)
  }

  test("a storage error reading a large table's checkpoint fails the read instead of loading its file list") {
    val t = faultyTable("large")
    spark.range(0, 40, 1, 8).write.format("silt").save(t)
    sql(s"INSERT INTO silt.`$t` VALUES (100)")
    sql(s"CHECKPOINT silt.`$t`")
    spark.conf.set("spark.silt.snapshot.maxDriverFiles", "2")
    try {
      TableLog.forget(spark, t)
      val e = intercept[Exception] {
        FaultyFileSystem.failing("open", """.*/_delta_log/\d+\.checkpoint\.parquet""") {
          spark.read.format("silt").load(t).where("id = 100").count()
        }
      }
      assert(FaultyFileSystem.failures > 0)
      assert(causes(e).exists(c => c.isInstanceOf[IOException] && c.getMessage.contains("injected fault")), e)
      TableLog.forget(spark, t)
      assert(spark.read.format("silt").load(t).where("id = 100").count() == 1)
    } finally spark.conf.unset("spark.silt.snapshot.maxDriverFiles")
  }

  test("a failed symlink manifest fails the statement naming the committed version; the commit stands") {
    val t = faultyTable("manifest")
    sql(s"CREATE TABLE silt.`$t` (id BIGINT, p INT) USING silt PARTITIONED BY (p) " +
      "TBLPROPERTIES ('delta.compatibility.symlinkFormatManifest.enabled' = 'true')")
    sql(s"INSERT INTO silt.`$t` VALUES (1, 1)")
    val e = intercept[PostCommitHookFailedException] {
      FaultyFileSystem.failing("create", ".*/_symlink_format_manifest/.*") { sql(s"INSERT INTO silt.`$t` VALUES (2, 2)") }
    }
    assert(e.version == 2 && e.getErrorClass == "DELTA_POST_COMMIT_HOOK_FAILED" && e.getSqlState == "2DKD0")
    assert(e.getMessage.contains("GENERATE symlink_format_manifest") && e.getMessage.contains("version 2 succeeded"))
    assert(spark.read.format("silt").load(t).count() == 2)
    sql(s"GENERATE symlink_format_manifest FOR TABLE silt.`$t`")
    val manifest = new Path(t + "/_symlink_format_manifest/p=2/manifest")
    assert(manifest.getFileSystem(spark.sessionState.newHadoopConf()).exists(manifest))
  }

  test("a failed auto compaction is a warning, and fails the statement under postCommitHook.throwOnError") {
    val t = faultyTable("compact")
    sql(s"CREATE TABLE silt.`$t` (id BIGINT) USING silt TBLPROPERTIES ('delta.autoOptimize.autoCompact' = 'true')")
    spark.conf.set("spark.databricks.delta.autoCompact.minNumFiles", "3")
    try {
      sql(s"INSERT INTO silt.`$t` VALUES (1)")
      sql(s"INSERT INTO silt.`$t` VALUES (2)")
      // the third small file makes a compaction, which must read the first two
      FaultyFileSystem.failing("open", """.*/part-[^/]*\.parquet""") { sql(s"INSERT INTO silt.`$t` VALUES (3)") }
      assert(FaultyFileSystem.failures > 0)
      spark.conf.set("spark.databricks.delta.postCommitHook.throwOnError", "true")
      val e = intercept[PostCommitHookFailedException] {
        FaultyFileSystem.failing("open", """.*/part-[^/]*\.parquet""") { sql(s"INSERT INTO silt.`$t` VALUES (4)") }
      }
      assert(e.version == 4 && e.hook == "Auto Compact" && e.getMessage.contains("OPTIMIZE"))
      assert(spark.read.format("silt").load(t).count() == 4)
    } finally {
      spark.conf.unset("spark.databricks.delta.autoCompact.minNumFiles")
      spark.conf.unset("spark.databricks.delta.postCommitHook.throwOnError")
    }
  }
}
