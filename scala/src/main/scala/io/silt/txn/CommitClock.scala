package io.silt.txn

/**
 * The clock commits are stamped with. Tests move it (as a machine whose clock was set back
 * would) to show that in-commit timestamps still increase; nothing else changes it.
 */
object CommitClock {
  @volatile private var offsetMs = 0L

  def now(): Long = System.currentTimeMillis() + offsetMs

  /** Moves this JVM's commit clock by `ms` from the real time (0: back to it). For tests. */
  def setOffsetForTests(ms: Long): Unit = offsetMs = ms
}
