package io.silt.txn

import java.util.concurrent.{ConcurrentHashMap, CountDownLatch, TimeUnit}

import org.apache.hadoop.fs.Path

/**
 * A test hook that makes concurrency tests deterministic: a point in the engine where, once a test armed it for a
 * table, the next thread to reach it for that table (whose `detail` the arming accepts) stops until the test
 * releases it. Nothing is armed unless a test arms it.
 */
final class PausePoint {
  private final class Pause(val accepts: String => Boolean) {
    val released = new CountDownLatch(1)
  }
  private val armed = new ConcurrentHashMap[String, Pause]()
  private val paused = new ConcurrentHashMap[String, Pause]()

  private def key(tablePath: String): String = new Path(tablePath).toUri.getPath.stripSuffix("/")

  /** Pauses the next thread to reach this point for the table at `tablePath` with a detail `accepts` takes. */
  def arm(tablePath: String, accepts: String => Boolean = _ => true): Unit = armed.put(key(tablePath), new Pause(accepts))

  /** Disarms the point for the table (a thread already waiting there goes on waiting). */
  def disarm(tablePath: String): Unit = armed.remove(key(tablePath))

  /** Whether a thread waits at this point for the table. */
  def isPaused(tablePath: String): Boolean = paused.containsKey(key(tablePath))

  /** Waits until a thread waits at this point for the table; false after `timeoutSeconds`. */
  def awaitPaused(tablePath: String, timeoutSeconds: Long): Boolean = {
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds)
    while (System.nanoTime() < deadline) {
      if (isPaused(tablePath)) return true
      Thread.sleep(10)
    }
    false
  }

  /** Disarms the point for the table and lets the thread waiting there (if any) go on. */
  def release(tablePath: String): Unit = {
    disarm(tablePath)
    Option(paused.remove(key(tablePath))).foreach(_.released.countDown())
  }

  /** Called by the engine at this point, for the table at `tablePath`. */
  def reach(tablePath: Path, detail: String = ""): Unit = {
    val k = key(tablePath.toString)
    val p = armed.get(k)
    if (p != null && p.accepts(detail) && armed.remove(k, p)) {
      paused.put(k, p)
      // A paused thread never waits longer than this: a test that forgets to release it fails instead of hanging.
      p.released.await(PausePoint.MaxPauseSeconds, TimeUnit.SECONDS)
    }
  }
}

object PausePoint {
  val MaxPauseSeconds = 300L
}
