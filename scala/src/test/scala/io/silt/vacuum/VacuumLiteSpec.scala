package io.silt.vacuum

import java.net.URI
import java.nio.file.Files
import java.util.concurrent.atomic.AtomicLong

import io.silt.errors.CannotVacuumLiteException
import io.silt.actions.{ActionCodec, AddFile, Format, Metadata, Protocol, RemoveFile}
import io.silt.log.{FileNames, TableLog}
import org.apache.hadoop.fs.{FileStatus, LocatedFileStatus, Path, RawLocalFileSystem, RemoteIterator}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.{LongType, StructType}
import org.scalatest.BeforeAndAfterAll
import org.scalatest.funsuite.AnyFunSuite

/**
 * The local file system under the scheme `count:`, counting the listings of folders and the deletes
 * outside `_delta_log` (only for LITE: Hadoop's recursive listing of a `count:` path cannot stat).
 */
class CountingFileSystem extends RawLocalFileSystem {
  override def getUri: URI = URI.create("count:///")
  override def getScheme: String = "count"
  private def count(p: Path): Unit = if (!p.toUri.getPath.contains("/_delta_log")) CountingFileSystem.dataListings.incrementAndGet()
  override def listStatus(f: Path): Array[FileStatus] = { count(f); super.listStatus(f) }
  override def listFiles(f: Path, recursive: Boolean): RemoteIterator[LocatedFileStatus] = { count(f); super.listFiles(f, recursive) }
  override def listLocatedStatus(f: Path): RemoteIterator[LocatedFileStatus] = { count(f); super.listLocatedStatus(f) }
  override def listStatusIterator(f: Path): RemoteIterator[FileStatus] = { count(f); super.listStatusIterator(f) }
  override def delete(f: Path, recursive: Boolean): Boolean = {
    if (!f.toUri.getPath.contains("/_delta_log")) CountingFileSystem.deletes.incrementAndGet()
    super.delete(f, recursive)
  }
}

object CountingFileSystem {
  val dataListings = new AtomicLong
  val deletes = new AtomicLong
  def reset(): Unit = { dataListings.set(0); deletes.set(0) }
}

class VacuumLiteSpec extends AnyFunSuite with BeforeAndAfterAll {
  private lazy val spark = SparkSession.builder().master("local[1]").config("spark.ui.enabled", "false")
    .config("spark.hadoop.fs.count.impl", classOf[CountingFileSystem].getName)
    .config("spark.hadoop.fs.count.impl.disable.cache", "false")
    .config("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    .getOrCreate()

  override def afterAll(): Unit = spark.stop()

  /** A table of `files` one-byte files (the log's, written directly) and a second commit removing `removed` of them. */
  private def table(files: Int, removed: Int, scheme: String = "file"): (Path, Seq[java.io.File]) = {
    val dir = Files.createTempDirectory("silt-vacuum-lite").resolve("t").toFile
    dir.mkdirs()
    val data = (0 until files).map { i =>
      val f = new java.io.File(dir, f"part-$i%05d.parquet")
      Files.write(f.toPath, Array[Byte](1))
      f
    }
    val root = new Path(scheme + "://" + dir.getAbsolutePath)
    val log = TableLog.forPath(spark, root.toString)
    val schema = new StructType().add("id", LongType).json
    val meta = Metadata("id-1", None, None, Format(), schema, Nil, Map.empty, Some(0L))
    val adds = data.map(f => AddFile(f.getName, Map.empty, 1L, 0L, dataChange = true))
    def commit(v: Long, actions: Seq[io.silt.actions.Action]): Unit =
      assert(log.store.writeIfAbsent(FileNames.commitPath(log.logPath, v), actions.map(ActionCodec.toJson)))
    commit(0, Seq(Protocol(1, 2), meta) ++ adds)
    commit(1, adds.take(removed).map(a => RemoveFile(a.path, Some(1L), dataChange = true, size = Some(1L))))
    TableLog.forget(spark, root.toString)
    (root, data)
  }

  test("LITE deletes exactly the files the log removed and lists no folder of the table") {
    val (root, data) = table(20000, 1000, scheme = "count")
    CountingFileSystem.reset()
    val result = Vacuum.run(spark, root, Some(0.0), dryRun = false, VacuumMode.Lite)
    assert(CountingFileSystem.dataListings.get == 0)
    assert(result.files.size == 1000)
    assert(CountingFileSystem.deletes.get == 1000)
    assert(data.take(1000).forall(!_.exists) && data.drop(1000).forall(_.exists))
    // the next LITE starts after the commits this one read: nothing left to do
    assert(Vacuum.run(spark, root, Some(0.0), dryRun = true, VacuumMode.Lite).files.isEmpty)
  }

  test("FULL also deletes files the log never named (from its listing); LITE leaves them") {
    val (root, data) = table(50, 10)
    val orphan = new java.io.File(data.head.getParentFile, "orphan.parquet")
    Files.write(orphan.toPath, Array[Byte](1))
    orphan.setLastModified(System.currentTimeMillis() - 3600000L)
    assert(Vacuum.run(spark, root, Some(0.0), dryRun = false, VacuumMode.Lite).files.size == 10)
    assert(orphan.exists)
    val full = Vacuum.run(spark, root, Some(0.0), dryRun = false, VacuumMode.Full)
    assert(full.files.map(new Path(_).getName) == Seq("orphan.parquet"))
    assert(!orphan.exists)
  }

  test("LITE refuses, naming VACUUM FULL, when the log no longer holds the commits of its window; after FULL it runs") {
    val (root, data) = table(20, 5)
    val log = TableLog.forPath(spark, root.toString)
    io.silt.checkpoint.Checkpoints.checkpoint(spark, log, log.latest())
    assert(new java.io.File(data.head.getParentFile, "_delta_log/" + FileNames.commitName(0)).delete())
    TableLog.forget(spark, root.toString)
    val e = intercept[CannotVacuumLiteException](Vacuum.run(spark, root, Some(0.0), dryRun = true, VacuumMode.Lite))
    assert(e.getMessage.contains("VACUUM FULL") && e.getMessage.contains("begins at commit 1"))
    assert(data.take(5).forall(_.exists))
    assert(Vacuum.run(spark, root, Some(0.0), dryRun = false, VacuumMode.Full).files.size == 5)
    assert(Vacuum.run(spark, root, Some(0.0), dryRun = true, VacuumMode.Lite).files.isEmpty)
  }
}
