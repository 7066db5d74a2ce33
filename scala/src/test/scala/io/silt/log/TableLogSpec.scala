package io.silt.log

import io.silt.actions._
import io.silt.logstore._

import java.nio.file.{Files, Path => JPath}
import java.util.concurrent.{CountDownLatch, Executors}

import io.silt.errors.{CorruptLogException, MissingCommitException, NotADeltaTableException, UnsupportedTableFeatureException, VersionNotFoundException}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

class TableLogSpec extends AnyFunSuite {
  private val conf = new Configuration()
  private val meta = Metadata("id", None, None, Format(), """{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]}""", Nil, Map.empty, None)

  private def newTable(): JPath = Files.createTempDirectory("silt-log")
  private def write(dir: JPath, version: Long, actions: Action*): Unit = {
    Files.createDirectories(dir.resolve("_delta_log"))
    Files.write(dir.resolve("_delta_log").resolve(FileNames.commitName(version)),
      actions.map(ActionCodec.toJson).mkString("\n").getBytes("UTF-8"))
  }
  private def log(dir: JPath) = TableLog.forPath(new Path(dir.toUri), conf)
  private def add(p: String) = AddFile(p, Map.empty, 1, 1, dataChange = true)

  test("a folder without commits is not a Delta table") {
    intercept[NotADeltaTableException](log(newTable()).latest())
  }

  test("a gap in the versions is refused, naming the missing version") {
    val dir = newTable()
    write(dir, 0, Protocol(1, 2), meta)
    write(dir, 1, add("a"))
    write(dir, 3, add("b"))
    val e = intercept[MissingCommitException](log(dir).latest())
    assert(e.missing == 2 && e.getMessage.contains("version 2"))
  }

  test("a corrupt commit names its file and line") {
    val dir = newTable()
    write(dir, 0, Protocol(1, 2), meta)
    Files.write(dir.resolve("_delta_log/00000000000000000001.json"), "{\"add\":{\"path\":\"x\",".getBytes)
    val e = intercept[CorruptLogException](log(dir).latest())
    assert(e.getMessage.contains("00000000000000000001.json") && e.getMessage.contains("line 1"))
  }

  test("an unknown reader version or feature is refused by name") {
    val dir = newTable()
    write(dir, 0, Protocol(99, 7), meta)
    assert(intercept[UnsupportedTableFeatureException](log(dir).latest()).getMessage.contains("reader version 99"))
    val dir2 = newTable()
    write(dir2, 0, Protocol(3, 7, Some(Set("fancyFeature")), Some(Set("fancyFeature"))), meta)
    assert(intercept[UnsupportedTableFeatureException](log(dir2).latest()).getMessage.contains("fancyFeature"))
  }

  test("time travel reaches every version and refuses the others") {
    val dir = newTable()
    write(dir, 0, Protocol(1, 2), meta)
    write(dir, 1, add("a"))
    write(dir, 2, add("b"))
    val l = log(dir)
    assert(l.latest().files.size == 2)
    assert(l.snapshotAt(1).files.size == 1)
    assert(l.snapshotAt(0).files.isEmpty)
    intercept[VersionNotFoundException](l.snapshotAt(3))
    write(dir, 3, RemoveFile("a", Some(1), dataChange = true))
    assert(l.latest().files.map(_.path) == Seq("b"))
  }

  test("of many writers racing for one version, exactly one wins") {
    val dir = newTable()
    val store = new LocalLogStore(conf)
    val target = FileNames.commitPath(new Path(dir.resolve("_delta_log").toUri), 0)
    val pool = Executors.newFixedThreadPool(8)
    val start = new CountDownLatch(1)
    val results = (1 to 16).map { i =>
      pool.submit(() => { start.await(); store.writeIfAbsent(target, Seq(s"""{"writer":$i}""")) })
    }
    start.countDown()
    val wins = results.map(_.get()).count(identity)
    pool.shutdown()
    assert(wins == 1)
    assert(store.readLines(target).size == 1)
    assert(!Files.list(dir.resolve("_delta_log")).toArray.exists(_.toString.endsWith(".tmp")))
  }

  test("a refresh finds the commits after the cached snapshot, a few by name and many by listing") {
    val dir = newTable()
    write(dir, 0, Protocol(1, 2), meta)
    val l = log(dir)
    assert(l.latest().version == 0)
    (1 to 3).foreach(v => write(dir, v, add(s"f$v")))
    assert(l.latest().version == 3 && l.latest().files.size == 3)
    (4 to 30).foreach(v => write(dir, v, add(s"f$v")))
    val s = l.latest()
    assert(s.version == 30 && s.files.map(_.path) == (1 to 30).map(v => s"f$v"))
    // timestamps stay monotonic across a probed refresh
    write(dir, 31, add("f31"))
    assert(l.latest().timestamp > s.timestamp)
  }

  test("logs are shared per path and configuration, never across file-system settings or options") {
    val dir = new Path(newTable().toUri)
    val other = new Configuration(conf)
    other.set("fs.s3a.access.key", "someone-else")
    assert(TableLog.forPath(dir, conf) eq TableLog.forPath(dir, new Configuration(conf)))
    assert(!(TableLog.forPath(dir, conf) eq TableLog.forPath(dir, other)))
    assert(!(TableLog.forPath(dir, conf) eq TableLog.forPath(dir, conf, LogOptions(allowFilesOutside = false))))
  }

  test("the cache of logs is bounded: the least recently used is dropped") {
    val first = new Path(newTable().toUri)
    val kept = TableLog.forPath(first, conf)
    (1 to 100).foreach(_ => TableLog.forPath(new Path(newTable().toUri), conf))
    assert(!(TableLog.forPath(first, conf) eq kept))
  }

  test("a commit range is the contiguous commits with their timestamps; a timestamp finds the last commit at or before it") {
    val dir = newTable()
    write(dir, 0, Protocol(1, 2), meta)
    write(dir, 1, add("a"))
    write(dir, 2, add("b"))
    val range = log(dir).commits()
    assert(range.entries.map(_.version) == Seq(0L, 1L, 2L))
    assert(range.entries.map(_.timestamp).sliding(2).forall { case Seq(a, b) => b > a })
    assert(range.lastAtOrBefore(range.entries(1).timestamp).map(_.version).contains(1L))
    assert(range.lastAtOrBefore(range.entries.head.timestamp - 1).isEmpty)
    assert(range.actions(range.entries(2)).collect { case a: AddFile => a.path } == Seq("b"))
  }
}
