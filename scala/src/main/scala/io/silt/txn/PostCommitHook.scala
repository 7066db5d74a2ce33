package io.silt.txn

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import io.silt.log.{Snapshot, TableLog}
import org.apache.spark.sql.SparkSession

/**
 * Work a transaction runs after it committed (a checkpoint, log cleanup). The commit stands
 * whatever a hook does: a hook reports its own failures rather than throwing them.
 */
trait PostCommitHook {
  /** Runs after `log` committed the version of `committed` (computed when first used). */
  def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit
}

object PostCommitHook {
  /**
   * The hooks on the class path (`META-INF/services/io.silt.txn.PostCommitHook`): layers above
   * the transaction (checkpoint writing) register theirs there instead of being called from here.
   */
  lazy val installed: Seq[PostCommitHook] =
    ServiceLoader.load(classOf[PostCommitHook], classOf[PostCommitHook].getClassLoader).asScala.toSeq
}
