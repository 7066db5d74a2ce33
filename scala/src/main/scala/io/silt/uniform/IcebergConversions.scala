package io.silt.uniform

import java.util.concurrent.{Executors, ThreadFactory, TimeUnit}

import scala.collection.mutable
import scala.util.control.NonFatal

import io.silt.log.{Snapshot, TableLog}
import org.apache.hadoop.fs.FileSystem
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * The Iceberg conversions of this JVM, run as Delta Lake runs them: after the commit, in the background, at most
 * one at a time per table. A commit made while its table converts is converted when that conversion ends (only the
 * newest such commit: a conversion catches up on every version before it), so frequent commits share conversions
 * instead of queueing them. At the JVM's exit, before Spark and the file systems close, the conversions in progress
 * are waited for (up to [[ExitWaitSeconds]]): a job that ends right after its last commit leaves Iceberg readers
 * that commit.
 */
object IcebergConversions extends Logging {
  /** How long the JVM's exit waits for the conversions in progress. */
  val ExitWaitSeconds = 60L

  /** One conversion to run: the committed version of a table, and the session that committed it. */
  final case class Job(spark: SparkSession, log: TableLog, snapshot: Snapshot) {
    val timeZone: String = spark.sessionState.conf.sessionLocalTimeZone
  }

  private final class Queue { var next: Option[Job] = None }
  // Tables converting now (by path), each with the commit to convert after; guarded by itself.
  private val converting = mutable.Map.empty[String, Queue]

  private lazy val executor = {
    registerExitWait()
    Executors.newCachedThreadPool(new ThreadFactory {
      override def newThread(r: Runnable): Thread = {
        val t = new Thread(r, "silt-iceberg-conversion")
        t.setDaemon(true)
        t
      }
    })
  }

  /** Converts `job` in the background: now, or after the table's conversion in progress. */
  def submit(job: Job): Unit = {
    val key = keyOf(job.log)
    val start = converting.synchronized {
      converting.get(key) match {
        case Some(q) =>
          if (q.next.forall(_.snapshot.version < job.snapshot.version)) q.next = Some(job)
          false
        case None =>
          converting(key) = new Queue
          true
      }
    }
    if (start) {
      try executor.execute(() => drain(key, job))
      catch {
        case NonFatal(e) =>
          done(key)
          throw e
      }
    }
  }

  /** The table at `key` converts no more: waiters are told. */
  private def done(key: String): Unit = converting.synchronized {
    converting.remove(key)
    converting.notifyAll()
  }

  /**
   * Converts `job` in this thread, once the table's conversions in the background have ended; a failure is logged,
   * never thrown: the commit stands and the statement succeeds.
   */
  def convertNow(job: Job): Unit = {
    awaitIdle(job.log, TimeUnit.SECONDS.toMillis(ExitWaitSeconds))
    convertLogged(job)
  }

  private def convertLogged(job: Job): Unit =
    try convertWinningRaces(job)
    catch {
      case NonFatal(e) => logWarning(s"Silt: version ${job.snapshot.version} of ${job.log.tablePath} is committed, " +
        s"but its Iceberg metadata could not be written: $e. ${UniformHook.remedyFor(job.log)}", e)
    }

  /** Waits until the table of `log` has no conversion in progress or waiting; false after `timeoutMs`. */
  def awaitIdle(log: TableLog, timeoutMs: Long): Boolean = awaitIdle(log.tablePath.toString, timeoutMs)

  /** Waits until the table at `tablePath` has no conversion in progress or waiting; false after `timeoutMs`. */
  def awaitIdle(tablePath: String, timeoutMs: Long): Boolean = {
    val key = keyOf(tablePath)
    awaitUntil(timeoutMs)(!converting.contains(key))
  }

  /** Waits until no table converts; false after `timeoutMs`. */
  def awaitAll(timeoutMs: Long): Boolean = awaitUntil(timeoutMs)(converting.isEmpty)

  private def awaitUntil(timeoutMs: Long)(done: => Boolean): Boolean = converting.synchronized {
    val deadline = System.currentTimeMillis() + timeoutMs
    var left = timeoutMs
    while (!done && left > 0) {
      converting.wait(left)
      left = deadline - System.currentTimeMillis()
    }
    done
  }

  private def drain(key: String, first: Job): Unit = {
    var job: Option[Job] = Some(first)
    try {
      while (job.isDefined) {
        convertLogged(job.get)
        job = converting.synchronized {
          val next = converting.get(key).flatMap(_.next)
          if (next.isDefined) converting(key).next = None else done(key)
          next
        }
      }
    } catch {
      case e: Throwable =>  // fatal (convertLogged keeps the others): the table must not stay "converting"
        done(key)
        throw e
    }
  }

  /**
   * Converts the job's version; when a conversion elsewhere (another JVM) wrote the next metadata version first
   * with an older Delta version, converts again on top of it (a few times), so that the newest commit is not left
   * for the next one to convert.
   */
  def convertWinningRaces(job: Job): Unit = {
    var attempts = 0
    while (IcebergConverter.convert(job.log, job.snapshot, job.timeZone).isEmpty && attempts < RaceAttempts &&
        IcebergMetadataFiles.latest(job.log).flatMap(_._2.properties.get(IcebergTableMetadata.DeltaVersionKey))
          .forall(_.toLong < job.snapshot.version)) attempts += 1
    IcebergCatalogEntries.update(job.spark, job.log, enabled = true)
  }

  /** Conversions of one commit after the first lost a race. */
  val RaceAttempts = 3

  private def keyOf(log: TableLog): String = keyOf(log.tablePath.toString)
  private def keyOf(tablePath: String): String = new org.apache.hadoop.fs.Path(tablePath).toUri.getPath.stripSuffix("/")

  private val exitBegun = new java.util.concurrent.CountDownLatch(1)

  /** Returns once the JVM's exit has begun waiting for the conversions in progress (for [[ConversionPause]]). */
  private[uniform] def awaitExitWait(): Unit = exitBegun.await()

  // Before Spark's own exit hook (which stops the SparkContext) and the file systems' (which close them).
  private def registerExitWait(): Unit =
    org.apache.hadoop.util.ShutdownHookManager.get().addShutdownHook(() => {
      exitBegun.countDown()
      if (!awaitAll(TimeUnit.SECONDS.toMillis(ExitWaitSeconds))) {
        logWarning(s"Silt: Iceberg conversions still in progress after $ExitWaitSeconds s at exit are left: the next " +
          "commit of their tables converts them")
      }
    }, FileSystem.SHUTDOWN_HOOK_PRIORITY + 40, ExitWaitSeconds + 5, TimeUnit.SECONDS)
}
