package io.silt.txn

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import io.silt.config.SiltSettings
import io.silt.errors.PostCommitHookFailedException
import io.silt.log.{Snapshot, TableLog}
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Work a transaction runs after it committed (a checkpoint, log cleanup). The commit stands
 * whatever a hook does; a hook throws its failure and `PostCommitHook.runAll` decides, as Delta
 * Lake does, whether the statement fails (`DELTA_POST_COMMIT_HOOK_FAILED`, naming the version) or
 * the failure is logged.
 */
trait PostCommitHook {
  /** The hook's name in errors and warnings (Delta Lake's name for its hook of the same work). */
  def name: String

  /** Runs after `log` committed the version of `committed` (computed when first used). */
  def afterCommit(spark: SparkSession, log: TableLog, committed: => Snapshot): Unit

  /**
   * Whether this hook's failure fails the statement even when `postCommitHook.throwOnError` is off:
   * a step whose failure leaves readers of something else than the log wrong (symlink manifests).
   */
  def failureFailsStatement(spark: SparkSession): Boolean = false

  /** What to run to do this hook's work again, for the table at `tablePath`: said in its failure. */
  def remedy(tablePath: String): String
}

object PostCommitHook extends Logging {
  /**
   * The hooks on the class path (`META-INF/services/io.silt.txn.PostCommitHook`): layers above
   * the transaction (checkpoint writing) register theirs there instead of being called from here.
   */
  lazy val installed: Seq[PostCommitHook] =
    ServiceLoader.load(classOf[PostCommitHook], classOf[PostCommitHook].getClassLoader).asScala.toSeq

  /**
   * Runs every hook after `version` was committed, each whatever the others did; then throws the
   * first failure that fails the statement, if any (the others are logged).
   */
  def runAll(spark: SparkSession, log: TableLog, version: Long, hooks: Seq[PostCommitHook],
      committed: => Snapshot): Unit = {
    val throwAll = SiltSettings.PostCommitHookThrowOnError(spark)
    val failures = hooks.flatMap { hook =>
      try { hook.afterCommit(spark, log, committed); None } catch {
        case NonFatal(e) if throwAll || hook.failureFailsStatement(spark) =>
          Some(new PostCommitHookFailedException(log.tablePath.toString, version, hook.name, hook.remedy(log.tablePath.toString), e))
        case NonFatal(e) =>
          logWarning(s"Silt: version $version of ${log.tablePath} is committed, but its post-commit step " +
            s"'${hook.name}' failed: $e. ${hook.remedy(log.tablePath.toString)}")
          None
      }
    }
    failures.headOption.foreach { first =>
      failures.tail.foreach(other => logWarning(other.getMessage, other.getCause))
      throw first
    }
  }
}
