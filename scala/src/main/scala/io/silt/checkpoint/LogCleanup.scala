package io.silt.checkpoint

import scala.util.control.NonFatal

import io.silt.errors.SiltException
import io.silt.features.{CheckpointPolicy, CheckpointProtectionFeature, TableFeatures, TableProperties}
import io.silt.log.{CheckpointReader, FileNames, LogListing, Snapshot, TableLog}
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Metadata cleanup: deletes commits, checkpoints and log compactions older than `delta.logRetentionDuration`
 * (or the shorter retention of DROP FEATURE … TRUNCATE HISTORY) that a kept checkpoint covers, and
 * sidecars no kept checkpoint refers to. The oldest kept version always has a checkpoint, so time
 * travel within the retention keeps working.
 */
object LogCleanup extends Logging {
  val SidecarGraceMs: Long = 24L * 3600 * 1000

  /**
   * The version of the checkpoint everything older than which may go, and those files: the
   * newest checkpoint not newer than the newest commit made before `now - retentionMs`.
   */
  def plan(listing: LogListing, now: Long, retentionMs: Long): Option[(Long, Seq[Path])] = {
    val cutoff = now - retentionMs
    for {
      cutoffCommit <- listing.commits.filter(_.timestamp <= cutoff).lastOption
      cp <- listing.checkpoints.filter(_.version <= cutoffCommit.version).sortBy(-_.version).headOption
    } yield {
      // A commit's checksum file (`<version>.crc`, which Delta writes beside it) goes with it.
      val commits = listing.commits.filter(_.version < cp.version).flatMap { c =>
        val path = c.file.getPath
        Seq(path, new Path(path.getParent, path.getName.stripSuffix(".json") + ".crc"))
      }
      val checkpoints = listing.checkpoints.filter(_.version < cp.version).flatMap(_.files.map(_.getPath))
      // a compaction starting at or before the kept checkpoint can no longer replace anything a replay reads
      val compactions = listing.compactions.filter(_.start <= cp.version).map(_.file.getPath)
      (cp.version, commits ++ checkpoints ++ compactions)
    }
  }

  /** Runs cleanup after a checkpoint of `snapshot`; returns how many log files were deleted. */
  def run(spark: SparkSession, log: TableLog, snapshot: Snapshot, now: Long): Int = {
    val props = TableProperties(snapshot.metadata.configuration)
    if (props.expiredLogCleanup) cleanUp(spark, log, snapshot, props.logRetentionMs, now) else 0
  }

  /**
   * Deletes the log files older than `retentionMs` that a kept checkpoint covers (and unreferenced
   * old sidecars); returns how many log files were deleted.
   */
  def cleanUp(spark: SparkSession, log: TableLog, snapshot: Snapshot, retentionMs: Long, now: Long): Int = {
    val props = TableProperties(snapshot.metadata.configuration)
    val fs = log.logPath.getFileSystem(log.hadoopConf)
    val listing = log.listing()
    // Under checkpoint protection the history before the protected version goes in one go or not
    // at all (deleting only its older part would let a reader start from a checkpoint there).
    val protectedBefore = if (TableFeatures.active(snapshot.protocol, snapshot.metadata).contains(CheckpointProtectionFeature))
      props.checkpointProtectedBefore else 0L
    val deleted = plan(listing, now, retentionMs) match {
      case Some((kept, files)) if kept >= protectedBefore || !listing.commits.headOption.exists(_.version < protectedBefore) =>
        files.count(f => fs.delete(f, false) && !f.getName.endsWith(".crc"))
      case _ => 0
    }
    // Only sidecars old enough to go make it worth reading the kept checkpoints for references.
    val sidecarDir = new Path(log.logPath, FileNames.SidecarDir)
    val old = log.store.list(sidecarDir).filter(st => !st.getPath.getName.startsWith(".") &&
      st.getModificationTime < now - SidecarGraceMs)
    if (old.nonEmpty) referencedSidecars(log) match {
      case Right(referenced) =>
        old.filterNot(st => referenced.contains(st.getPath.getName)).foreach(st => fs.delete(st.getPath, false))
      case Left(unread) =>
        // A checkpoint whose list could not be read may name any of them: none can be proved unreferenced.
        logWarning(s"Silt: kept all ${old.size} old sidecar files of ${log.tablePath}: the sidecar list of " +
          s"$unread could not be read, so none is known to be unreferenced; a later cleanup removes them")
    }
    if (deleted > 0 && props.checkpointPolicy == CheckpointPolicy.V2 &&
      !fs.exists(new Path(log.logPath, FileNames.checkpointName(snapshot.version)))) {
      CheckpointWriter.writeCompatibilityCheckpoint(spark, log, snapshot)
    }
    if (deleted > 0) logInfo(s"Silt: deleted $deleted expired log files of ${log.tablePath}")
    deleted
  }

  /**
   * The names of the sidecars the log's checkpoints refer to, or (Left) the first checkpoint whose
   * list could not be read and why: then no sidecar may be deleted.
   */
  def referencedSidecars(log: TableLog): Either[String, Set[String]] = {
    val names = Set.newBuilder[String]
    val read = log.listing().checkpoints.iterator.map { cp =>
      try { names ++= CheckpointReader.sidecarsOf(log.store, log.logPath, cp).map(_.getName); Right(()) }
      catch { case NonFatal(e) => Left(s"checkpoint ${cp.version} (${SiltException.describe(e)})") }
    }
    // the first list that cannot be read decides: the others need not be read
    read.collectFirst { case Left(why) => why } match {
      case Some(why) => Left(why)
      case None => Right(names.result())
    }
  }
}
