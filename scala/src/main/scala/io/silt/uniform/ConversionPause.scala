package io.silt.uniform

import io.silt.txn.PausePoint
import org.apache.hadoop.fs.Path

/**
 * A test hook that makes tests of conversions deterministic: once armed for a table, its next Iceberg conversion
 * stops after it has read the metadata it builds on and written its manifests, before it writes the metadata file,
 * until the test releases it. Nothing is armed unless a test arms it.
 */
object ConversionPause {
  private val point = new PausePoint

  /** Pauses the next conversion of the table at `tablePath`. */
  def arm(tablePath: String): Unit = point.arm(tablePath)

  /** Waits until a conversion of the table is paused; false after `timeoutSeconds`. */
  def awaitPaused(tablePath: String, timeoutSeconds: Long): Boolean = point.awaitPaused(tablePath, timeoutSeconds)

  /** Lets the paused conversion (if any) of the table go on. */
  def release(tablePath: String): Unit = point.release(tablePath)

  /**
   * Releases the table's paused conversion once the JVM's exit has begun waiting for conversions (a test that the
   * exit waits: the conversion can end only after the exit began).
   */
  def releaseWhenExitWaits(tablePath: String): Unit = {
    val t = new Thread(() => {
      IcebergConversions.awaitExitWait()
      release(tablePath)
    }, "silt-conversion-pause-release")
    t.setDaemon(true)
    t.start()
  }

  private[uniform] def reach(tablePath: Path): Unit = point.reach(tablePath)
}
