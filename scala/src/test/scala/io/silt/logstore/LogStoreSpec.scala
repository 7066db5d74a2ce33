package io.silt.logstore

import java.io.IOException
import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalatest.funsuite.AnyFunSuite

class LogStoreSpec extends AnyFunSuite {
  private val conf = new Configuration()

  /** A store whose create runs `behaviour` (attempt number, path, bytes), as an object store's PUT might behave. */
  private class ScriptedStore(behaviour: (Int, Path, Array[Byte]) => Unit) extends LogStore {
    val hadoopConf: Configuration = conf
    def name = "scripted"
    def atomicAcrossProcesses = true
    var attempts = 0
    protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = createVerified(path, content) {
      attempts += 1
      behaviour(attempts, path, content)
    }
  }
  private def newPath(): Path = new Path(Files.createTempDirectory("silt-store").resolve("00000000000000000001.json").toUri)
  private def put(p: Path, bytes: Array[Byte]): Unit = Files.write(java.nio.file.Paths.get(p.toUri), bytes)
  private val preconditionFailed = new IOException("412 Precondition Failed")

  test("a create whose request landed but reported a failure (a PUT retried after it succeeded) is our commit") {
    val store = new ScriptedStore((_, p, bytes) => { put(p, bytes); throw preconditionFailed })
    assert(store.writeIfAbsent(newPath(), Seq("""{"commitInfo":{"txnId":"ours"}}""")))
  }

  test("a create refused because another writer's commit is there lost the race") {
    val store = new ScriptedStore((_, p, _) => {
      put(p, "{\"commitInfo\":{\"txnId\":\"theirs\"}}\n".getBytes(StandardCharsets.UTF_8)); throw preconditionFailed
    })
    assert(!store.writeIfAbsent(newPath(), Seq("""{"commitInfo":{"txnId":"ours"}}""")))
  }

  test("a failure that left no file (409 Conflict) is retried; one that persists is thrown") {
    val flaky = new ScriptedStore((n, p, bytes) => if (n < 3) throw new IOException("409 Conflict") else put(p, bytes))
    assert(flaky.writeIfAbsent(newPath(), Seq("x")))
    assert(flaky.attempts == 3)
    val broken = new ScriptedStore((_, _, _) => throw new IOException("503 Slow Down"))
    val e = intercept[IOException](broken.writeIfAbsent(newPath(), Seq("x")))
    assert(e.getMessage == "503 Slow Down" && broken.attempts == 3)
  }

  test("each scheme gets its store; the setting replaces it; a bad name is refused naming the setting") {
    def store(path: String, chosen: Map[String, String] = Map.empty) = LogStores.forPath(new Path(path), conf, chosen).name
    assert(store("/tmp/t") == "link" && store("file:/tmp/t") == "link")
    assert(store("s3a://b/t") == "conditional-create" && store("gs://b/t") == "create-no-overwrite")
    assert(Seq("hdfs://nn/t", "abfss://c@a.dfs.core.windows.net/t", "viewfs://x/t").map(store(_)).toSet == Set("rename"))
    assert(store("s3a://b/t", Map("s3a" -> "single-driver")) == "single-driver")
    assert(store("/tmp/t", Map("file" -> "io.silt.logstore.RenameLogStore")) == "rename")
    val e = intercept[io.silt.errors.UnsupportedOptionException](store("s3a://b/t", Map("s3a" -> "com.example.NoSuchStore")))
    assert(e.getMessage.contains("spark.silt.logStore.s3a.impl") && e.getMessage.contains("names no class"))
  }

  test("a store that ignores If-None-Match is found out before the first commit, and nothing is committed") {
    val ignoring = new ConditionalCreateLogStore(conf) {
      override protected def canCreateConditionally(path: Path) = true
      override protected def conditionalPut(path: Path, content: Array[Byte]): Unit = put(path, content) // replaces
    }
    val p = newPath()
    val e = intercept[io.silt.errors.AtomicCommitUnavailableException](ignoring.writeIfAbsent(p, Seq("x")))
    assert(e.getMessage.contains("does not honour conditional creates") && e.getMessage.contains("single-driver"))
    assert(!Files.exists(java.nio.file.Paths.get(p.toUri)))
    assert(Files.list(java.nio.file.Paths.get(p.getParent.toUri)).count() == 0) // the probe is gone too
    val honouring = new ConditionalCreateLogStore(conf) {
      override protected def canCreateConditionally(path: Path) = true
      override protected def conditionalPut(path: Path, content: Array[Byte]): Unit = {
        val file = java.nio.file.Paths.get(path.toUri)
        if (Files.exists(file)) throw new IOException("412 Precondition Failed") else put(path, content)
      }
    }
    assert(honouring.writeIfAbsent(p, Seq("x")) && !honouring.writeIfAbsent(p, Seq("y")))
  }
}
