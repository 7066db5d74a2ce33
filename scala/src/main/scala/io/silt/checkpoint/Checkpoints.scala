package io.silt.checkpoint

import scala.util.control.NonFatal

import io.silt.log.{Snapshot, TableLog, TableProperties}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/** When to checkpoint: every `delta.checkpointInterval` commits, after the commit, never failing it. */
object Checkpoints extends Logging {
  val FailOnErrorKey = "spark.silt.checkpoint.failOnError"

  /** The post-commit step: a checkpoint (then log cleanup) when the committed `snapshot`'s version is due for one. */
  def postCommit(spark: SparkSession, log: TableLog, snapshot: => Snapshot): Unit = {
    try {
      val s = snapshot
      val interval = TableProperties(s.metadata.configuration).checkpointInterval
      if (s.version > 0 && s.version % interval == 0) checkpoint(spark, log, s)
    } catch {
      case NonFatal(e) if !spark.conf.get(FailOnErrorKey, "false").toBoolean =>
        logWarning(s"Silt: could not checkpoint ${log.tablePath} after a commit; the commit stands: $e")
    }
  }

  /** Writes a checkpoint of `snapshot` now, then cleans up expired log files. */
  def checkpoint(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint = {
    io.silt.sql.JobDescription(spark, s"CHECKPOINT ${log.tablePath.getName} at version ${snapshot.version}") {
      val written = CheckpointWriter.write(spark, log, snapshot)
      LogCleanup.run(spark, log, snapshot, System.currentTimeMillis())
      written
    }
  }
}
