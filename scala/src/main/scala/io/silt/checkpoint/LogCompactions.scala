package io.silt.checkpoint

import scala.util.control.NonFatal

import io.silt.actions.ActionCodec
import io.silt.config.SiltSettings
import io.silt.log.{FileNames, LogReplay, Snapshot, TableLog}
import io.silt.txn.PostCommitHook
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Log compaction files (`<x>.<y>.compacted.json`): the reconciled actions of commits `x` to `y`,
 * which readers (Silt, Delta Lake, delta-kernel-rs) replay instead of those commits. Written, as
 * Delta Kernel writes them, after each commit that ends an interval of `spark.silt.log.compaction.interval`.
 */
object LogCompactions {
  /** Whether the commit at `version` ends an interval of `interval` commits (versions start at 0). */
  def due(version: Long, interval: Int): Boolean = interval > 0 && version > 0 && (version + 1) % interval == 0

  /** The commits a compaction after `version` covers: the interval it ends. */
  def range(version: Long, interval: Int): (Long, Long) = (math.max(0L, version + 1 - interval), version)

  /**
   * Writes the compaction of commits `start` to `end` of `log` unless it exists; returns its path.
   * Created only if absent, as a commit is: a reader never sees half of one.
   */
  def write(log: TableLog, start: Long, end: Long): Path = {
    require(end > start, s"a log compaction covers at least two commits, not $start to $end")
    // the files' locations were checked when they were committed; here they are only carried over
    val replay = new LogReplay(log.tablePath, allowFilesOutside = true)
    (start to end).foreach(v => replay.append(log.readCommit(v)))
    val path = new Path(log.logPath, FileNames.compactedName(start, end))
    log.store.writeIfAbsent(path, replay.reconciled.map(ActionCodec.toJson))
    path
  }
}

/** The post-commit step writing a log compaction when the committed version ends an interval; never fails the commit. */
final class LogCompactionHook extends PostCommitHook with Logging {
  override val name: String = "Log compaction"

  // Only reached under checkpoint.failOnError: otherwise a failure is a warning here.
  override def failureFailsStatement(spark: SparkSession): Boolean = true

  override def remedy(tablePath: String): String = "a later commit that ends an interval writes one"

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    val interval = SiltSettings.LogCompactionInterval(spark)
    if (interval > 0) {
      try {
        val version = committed.version
        if (LogCompactions.due(version, interval)) {
          val (start, end) = LogCompactions.range(version, interval)
          LogCompactions.write(log, start, end)
        }
      } catch {
        case NonFatal(e) if !SiltSettings.CheckpointFailOnError(spark) =>
          logWarning(s"Silt: could not write a log compaction of ${log.tablePath} after a commit; the commit stands: $e")
      }
    }
  }
}
