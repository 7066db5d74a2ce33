package io.silt.txn

import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, TimeUnit}

import org.apache.hadoop.fs.Path

/**
 * A test hook that makes concurrency tests deterministic: once armed for a table, the next
 * transaction to commit to it stops after it has read and written everything but its commit (or,
 * armed with [[armAfterCommit]], just after its commit, before anything that follows it), until
 * the test releases it. Nothing is armed unless a test arms it.
 */
object CommitPause {
  private final class Pause(val afterCommit: Boolean, val operation: Option[String] = None) {
    val reached = new CountDownLatch(1)
    val released = new CountDownLatch(1)
  }
  private val armed = new ConcurrentHashMap[String, Pause]()
  private val paused = new ConcurrentHashMap[String, Pause]()
  // A paused transaction never waits longer than this: a test that forgets to release it fails instead of hanging.
  private val MaxPauseSeconds = 300L

  private def key(tablePath: String): String = new Path(tablePath).toUri.getPath.stripSuffix("/")

  /** Pauses the next commit to the table at `tablePath`. */
  def arm(tablePath: String): Unit = armed.put(key(tablePath), new Pause(afterCommit = false))

  /**
   * Pauses the next commit of the operation named `operation` (as the history names it) to the table
   * at `tablePath`, letting other commits by: a commit that follows another, such as auto compaction's.
   */
  def armFor(tablePath: String, operation: String): Unit =
    armed.put(key(tablePath), new Pause(afterCommit = false, Some(operation)))

  /** Pauses the next commit to the table at `tablePath` once its commit file is written (a crash test's kill point). */
  def armAfterCommit(tablePath: String): Unit = armed.put(key(tablePath), new Pause(afterCommit = true))

  /** Waits until a transaction is paused at the table's commit; false after `timeoutSeconds`. */
  def awaitPaused(tablePath: String, timeoutSeconds: Long): Boolean = {
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
    while (System.nanoTime() < deadline) {
      val p = paused.get(key(tablePath))
      if (p != null) return true
      Thread.sleep(10)
    }
    false
  }

  /** Lets the paused transaction (if any) of the table go on to commit. */
  def release(tablePath: String): Unit = {
    armed.remove(key(tablePath))
    Option(paused.remove(key(tablePath))).foreach(_.released.countDown())
  }

  /** Called by a transaction just before it commits. */
  private[txn] def beforeCommit(tablePath: Path, operation: String): Unit =
    pauseIf(tablePath, afterCommit = false, operation)

  /** Called by a transaction just after its commit file is written. */
  private[txn] def afterCommit(tablePath: Path): Unit = pauseIf(tablePath, afterCommit = true, "")

  private def pauseIf(tablePath: Path, afterCommit: Boolean, operation: String): Unit = {
    val k = key(tablePath.toString)
    val p = armed.get(k)
    if (p != null && p.afterCommit == afterCommit && p.operation.forall(_ == operation) && armed.remove(k, p)) {
      paused.put(k, p)
      p.reached.countDown()
      p.released.await(MaxPauseSeconds, TimeUnit.SECONDS)
    }
  }
}
