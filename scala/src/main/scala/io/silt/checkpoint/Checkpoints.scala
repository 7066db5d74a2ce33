package io.silt.checkpoint

import scala.util.control.NonFatal

import io.silt.config.SiltSettings
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.spark.JobDescription
import io.silt.txn.PostCommitHook
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/** When to checkpoint: every `delta.checkpointInterval` commits, after the commit, never failing it. */
object Checkpoints {
  /** Writes a checkpoint of `snapshot` now, then cleans up expired log files. */
  def checkpoint(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint = {
    JobDescription(spark, s"CHECKPOINT ${log.tablePath.getName} at version ${snapshot.version}") {
      val written = CheckpointWriter.write(spark, log, snapshot)
      LogCleanup.run(spark, log, snapshot, System.currentTimeMillis())
      written
    }
  }
}

/** The post-commit step every transaction runs: a checkpoint (then log cleanup) when the committed version is due for one. */
final class CheckpointHook extends PostCommitHook with Logging {
  override val name: String = "Post commit checkpoint trigger"

  // Only reached under checkpoint.failOnError: otherwise a failure is a warning here, as in Delta Lake.
  override def failureFailsStatement(spark: SparkSession): Boolean = true

  override def remedy(tablePath: String): String = s"run CHECKPOINT delta.`$tablePath`, or let a later commit write one"

  override def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit = {
    try {
      val s = committed
      if (s.version > 0 && s.version % TableProperties(s.metadata.configuration).checkpointInterval == 0) {
        Checkpoints.checkpoint(spark, log, s)
      }
    } catch {
      case NonFatal(e) if !SiltSettings.CheckpointFailOnError(spark) =>
        logWarning(s"Silt: could not checkpoint ${log.tablePath} after a commit; the commit stands: $e")
    }
  }
}
