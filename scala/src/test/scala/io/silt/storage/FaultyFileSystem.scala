package io.silt.storage

import java.io.IOException
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FSDataInputStream, FSDataOutputStream, FileStatus, Path, RawLocalFileSystem}
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.util.Progressable

/**
 * The local file system (`file:`, in the sessions that mount it) failing the calls a test arms: an
 * `open`, `create` or listing of a path matching a pattern throws an IOException, as a throttled,
 * reset or timed-out object store request does. Rules are global (tasks of a local master run in
 * this JVM); with none armed it is the plain local file system.
 */
class FaultyFileSystem extends RawLocalFileSystem {
  private def check(op: String, p: Path): Unit = FaultyFileSystem.check(op, p)
  override def open(f: Path, bufferSize: Int): FSDataInputStream = { check("open", f); super.open(f, bufferSize) }
  override def create(f: Path, permission: FsPermission, overwrite: Boolean, bufferSize: Int, replication: Short,
      blockSize: Long, progress: Progressable): FSDataOutputStream = {
    check("create", f)
    super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress)
  }
  override def create(f: Path, overwrite: Boolean, bufferSize: Int, replication: Short, blockSize: Long,
      progress: Progressable): FSDataOutputStream = {
    check("create", f)
    super.create(f, overwrite, bufferSize, replication, blockSize, progress)
  }
  override def listStatus(f: Path): Array[FileStatus] = { check("list", f); super.listStatus(f) }
}

object FaultyFileSystem {
  /**
   * The Spark settings that mount it as the session's `file:` (not cached: a file system cached by
   * another session of this JVM would not fail).
   */
  val conf: Map[String, String] = Map("spark.hadoop.fs.file.impl" -> classOf[FaultyFileSystem].getName,
    "spark.hadoop.fs.file.impl.disable.cache" -> "true")

  private final case class Rule(op: String, pattern: String)
  private val rules = ConcurrentHashMap.newKeySet[Rule]()
  private val hits = new ConcurrentHashMap[Rule, java.lang.Long]()

  /** From now on, `op` ("open", "create", "list") of a path whose text matches `pattern` fails. */
  def arm(op: String, pattern: String): Unit = rules.add(Rule(op, pattern))

  /** How many calls the rules failed since the last [[reset]]. */
  def failures: Long = hits.values.asScala.map(_.longValue).sum

  /** No rule and no count left. */
  def reset(): Unit = { rules.clear(); hits.clear() }

  /** Runs `body` with `op` of paths matching `pattern` failing (counted from zero); the rule is gone after. */
  def failing[T](op: String, pattern: String)(body: => T): T = {
    reset()
    arm(op, pattern)
    try body finally rules.clear()
  }

  private def check(op: String, p: Path): Unit = rules.asScala.find(r => r.op == op && p.toString.matches(r.pattern)).foreach { r =>
    hits.merge(r, 1L, (a: java.lang.Long, b: java.lang.Long) => a + b)
    throw new IOException(s"injected fault: $op $p (503 Slow Down)")
  }
}
