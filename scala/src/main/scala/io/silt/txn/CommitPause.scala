package io.silt.txn

import org.apache.hadoop.fs.Path

/**
 * A test hook that makes concurrency tests deterministic: once armed for a table, the next
 * transaction to commit to it stops after it has read and written everything but its commit (or,
 * armed with [[armAfterCommit]], just after its commit, before anything that follows it), until
 * the test releases it. Nothing is armed unless a test arms it.
 */
object CommitPause {
  private val before = new PausePoint
  private val after = new PausePoint

  /** Pauses the next commit to the table at `tablePath`. */
  def arm(tablePath: String): Unit = { after.disarm(tablePath); before.arm(tablePath) }

  /**
   * Pauses the next commit of the operation named `operation` (as the history names it) to the table
   * at `tablePath`, letting other commits by: a commit that follows another, such as auto compaction's.
   */
  def armFor(tablePath: String, operation: String): Unit = { after.disarm(tablePath); before.arm(tablePath, _ == operation) }

  /** Pauses the next commit to the table at `tablePath` once its commit file is written (a crash test's kill point). */
  def armAfterCommit(tablePath: String): Unit = { before.disarm(tablePath); after.arm(tablePath) }

  /** Waits until a transaction is paused at the table's commit; false after `timeoutSeconds`. */
  def awaitPaused(tablePath: String, timeoutSeconds: Long): Boolean = {
    val deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(timeoutSeconds)
    while (System.nanoTime() < deadline) {
      if (before.isPaused(tablePath) || after.isPaused(tablePath)) return true
      Thread.sleep(10)
    }
    false
  }

  /** Lets the paused transaction (if any) of the table go on to commit. */
  def release(tablePath: String): Unit = { before.release(tablePath); after.release(tablePath) }

  /** Called by a transaction just before it commits. */
  private[txn] def beforeCommit(tablePath: Path, operation: String): Unit = before.reach(tablePath, operation)

  /** Called by a transaction just after its commit file is written. */
  private[txn] def afterCommit(tablePath: Path): Unit = after.reach(tablePath)
}
