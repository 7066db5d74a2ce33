package io.silt.checkpoint

import io.silt.actions.Action
import io.silt.features.TableProperties
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.spark.sql.SparkSession

/**
 * The history steps of DROP FEATURE … TRUNCATE HISTORY: a checkpoint on a commit of its own (the
 * point the history can be cut at), the log cut back to `delta.dropFeatureTruncateHistory.retentionDuration`,
 * and the questions whether a kept version still uses a feature, or still lies before a version.
 */
object HistoryTruncation {
  /**
   * Commits nothing but a commitInfo (Delta's "Empty Commit") and checkpoints it: once older than
   * the retention, everything before it can go. Returns the checkpoint's version.
   */
  def checkpointOnEmptyCommit(spark: SparkSession, log: TableLog): Long = {
    val txn = OptimisticTransaction.start(spark, log)
    txn.readFiles(Nil)
    val version = txn.commit(Nil, Operation.EmptyCommit)
    Checkpoints.checkpoint(spark, log, log.snapshotAt(version))
    version
  }

  /** Deletes the log older than the table's TRUNCATE HISTORY retention (as metadata cleanup does); returns the files deleted. */
  def truncate(spark: SparkSession, log: TableLog, snapshot: Snapshot): Int = {
    val retention = TableProperties(snapshot.metadata.configuration).truncateHistoryRetentionMs
    LogCleanup.cleanUp(spark, log, snapshot, retention, System.currentTimeMillis())
  }

  /** Whether every commit and checkpoint before `version` is gone (the oldest kept checkpoint is at or after it). */
  def truncatedBefore(log: TableLog, version: Long): Boolean = {
    val listing = log.listing()
    !listing.commits.exists(_.version < version) && listing.checkpoints.exists(_.version >= version)
  }

  /**
   * Whether a kept version up to `upTo` has an action `traces` holds for: the state of the oldest
   * checkpoint (its files and metadata; the removals it keeps are only for VACUUM) and every commit
   * file still there. A log without a checkpoint is read from commit 0.
   */
  def uses(log: TableLog, upTo: Long, traces: Action => Boolean): Boolean = {
    val listing = log.listing()
    val oldest = listing.checkpoints.map(_.version).filter(_ <= upTo).sorted.headOption
    val atCheckpoint = oldest.exists { v =>
      val s = log.snapshotAt(v)
      traces(s.metadata) || s.files.exists(traces(_))
    }
    atCheckpoint || listing.commits.iterator.filter(_.version <= upTo).exists(c => log.readCommit(c.version).exists(traces))
  }
}
