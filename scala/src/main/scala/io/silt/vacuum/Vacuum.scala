package io.silt.vacuum

import io.silt.config.SiltSettings
import scala.collection.mutable.ArrayBuffer

import io.silt.errors.{InvalidTableOperationException, NotADeltaTableException}
import io.silt.actions.TablePaths
import io.silt.features.{ChangeDataFeed, TableFeatures, TableProperties}
import io.silt.log.{Snapshot, TableLog}
import io.silt.txn.{Operation, OptimisticTransaction}
import io.silt.uniform.IcebergMetadataFiles
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.util.SerializableConfiguration

/** What VACUUM found (and, unless a dry run, deleted). */
final case class VacuumResult(files: Seq[String], bytes: Long, deletionVectors: Long, dryRun: Boolean)

/** How VACUUM finds what to delete. */
sealed abstract class VacuumMode(val name: String) extends Serializable
object VacuumMode {
  /** Lists every file under the table root: also finds files that were never committed. */
  case object Full extends VacuumMode("FULL")
  /** Reads the removals of the commits since the last VACUUM from the log: no listing. */
  case object Lite extends VacuumMode("LITE")
}

/**
 * VACUUM: deletes the data and deletion-vector files under the table root that the current
 * version does not use and that were removed (or, for files never committed, written) longer
 * ago than the retention. `_delta_log` and hidden paths are never touched, nor files outside the
 * table root (a shallow clone's source files).
 */
object Vacuum {
  private val Warnings = org.slf4j.LoggerFactory.getLogger(getClass)
  /** Above this many files the deletes run in the executors. */
  private val ParallelDeleteThreshold = 1000
  /** The stores on which Delta Lake records VACUUM START/END unless told: tools reading an S3 table's history see none. */
  private val LoggedByDefault = Set("file", "hdfs", "gs", "abfs", "abfss", "wasbs", "wasbss", "adl")

  /** `inventory`: the files to consider instead of listing the table's folder (FULL only; see [[Inventory]]). */
  def run(spark: SparkSession, tablePath: Path, retentionHours: Option[Double], dryRun: Boolean,
      mode: VacuumMode = VacuumMode.Full, inventory: Option[DataFrame] = None): VacuumResult = {
    val log = TableLog.forPath(spark, tablePath.toString)
    val snapshot = log.latestOption().getOrElse(throw new NotADeltaTableException(tablePath.toString))
    // vacuumProtocolCheck: VACUUM must honour the table's write protocol.
    TableFeatures.checkWritable(tablePath.toString, snapshot.protocol, snapshot.metadata)
    val defaultMs = TableProperties(snapshot.metadata.configuration).deletedFileRetentionMs
    val given = retentionHours.map(h => (h * 3600 * 1000).toLong)
    // Delta Lake 4.4 keeps the table's retention unless RETAIN is 0 hours; a pipeline moved in deletes no more than there.
    val ignored = given.exists(_ > 0) && SiltSettings.VacuumRetentionWindowIgnore(spark)
    if (ignored) {
      Warnings.warn(s"VACUUM $tablePath RETAIN ${retentionHours.get} HOURS keeps the table's delta.deletedFileRetentionDuration " +
        s"(${defaultMs / 3600000.0} hours) instead, as Delta Lake does: set that property to change the retention, or " +
        s"${SiltSettings.VacuumRetentionWindowIgnore.key} = false to use RETAIN's")
    }
    val retentionMs = given.filterNot(_ => ignored).getOrElse(defaultMs)
    val checkEnabled = SiltSettings.VacuumRetentionCheck(spark)
    if (retentionMs < 0) throw new InvalidTableOperationException(s"VACUUM retention must not be negative, not ${retentionHours.get} hours")
    if (retentionMs < defaultMs && checkEnabled) {
      throw new InvalidTableOperationException(s"VACUUM RETAIN ${retentionHours.get} HOURS is shorter than the table's " +
        s"delta.deletedFileRetentionDuration (${defaultMs / 3600000.0} hours): files that concurrent readers or time travel " +
        s"still need could be deleted. Set ${SiltSettings.VacuumRetentionCheck.key} = false to do it anyway.")
    }
    val cutoff = System.currentTimeMillis() - retentionMs
    // a large table's needed files are a Spark job's rows, never a set on the driver
    val kept = keptFolders(snapshot.metadata)
    val distributed = if (snapshot.fileListOffDriver) DistributedVacuum.referenced(spark, log, snapshot, cutoff) else None
    lazy val keep = referenced(snapshot, cutoff)
    // The newest commit whose removals this run deals with: where the next LITE starts.
    val (candidates, vacuumedTo) = mode match {
      case VacuumMode.Full =>
        val fs = tablePath.getFileSystem(log.hadoopConf)
        val root = fs.makeQualified(tablePath)
        val candidates = distributed match {
          case Some(needed) =>
            val files = inventory.map(DistributedVacuum.inventoried(spark, _, root, kept))
              .getOrElse(DistributedVacuum.listing(spark, log, kept))
            DistributedVacuum.candidates(files, needed, cutoff)
          case None =>
            val files = inventory match {
              case Some(df) => Inventory.filesUnder(df, root).collect {
                case (relative, f) if wanted(relative.split('/'), isDir = false, kept) => f
              }
              case None => listTableFiles(fs, root, kept).map(st => InventoryFile(st.getPath, st.getLen, st.getModificationTime))
            }
            files.filter(f => !keep.contains(key(f.path)) && f.modificationTime < cutoff)
              .map(f => VacuumCandidate(f.path, f.length, f.path.getName.startsWith("deletion_vector_")))
        }
        (candidates, RemovedFiles.newestBefore(log, cutoff))
      case VacuumMode.Lite =>
        RemovedFiles.window(log, snapshot, cutoff) match {
          case Some(w) =>
            val candidates = distributed match {
              case Some(needed) =>
                val removed = RemovedFiles.candidates(log, w, _ => false)
                val kept = DistributedVacuum.needed(spark, removed.map(c => key(c.path)), needed)
                removed.filterNot(c => kept(key(c.path)))
              case None => RemovedFiles.candidates(log, w, keep.contains)
            }
            (candidates, Some(w.to))
          case None => (Nil, None)
        }
    }
    val paths = candidates.map(_.path.toString)
    val bytes = candidates.map(_.size).sum
    val dvs = candidates.count(_.isDeletionVector).toLong
    if (!dryRun) {
      val logged = SiltSettings.VacuumLogging.option(spark).getOrElse {
        LoggedByDefault(tablePath.getFileSystem(log.hadoopConf).makeQualified(tablePath).toUri.getScheme)
      }
      if (logged) commitInfoOnly(spark, log, Operation.VacuumStart(checkEnabled, defaultMs, retentionMs, mode.name,
        Map("numFilesToDelete" -> paths.size.toLong, "sizeOfDataToDelete" -> bytes)))
      val deleted = delete(spark, paths, log.hadoopConf)
      if (logged) commitInfoOnly(spark, log, Operation.VacuumEnd(Map("numDeletedFiles" -> deleted,
        "numDeletionVectorsDeleted" -> dvs, "numVacuumedDirectories" -> 0L)))
      vacuumedTo.foreach(LastVacuumInfo.write(log, _))
    }
    VacuumResult(paths, bytes, dvs, dryRun)
  }

  /** Files the table still needs: live files, their DVs, and files of tombstones within the retention. */
  private def referenced(snapshot: Snapshot, cutoff: Long): Set[String] = {
    val root = snapshot.tablePath
    val live = snapshot.files.flatMap(a => Seq(snapshot.filePath(a)) ++ a.deletionVector.filterNot(_.isInline).map(_.filePath(root)))
    val recent = snapshot.tombstones.filter(_.deletionTimestamp.forall(_ > cutoff)).flatMap { r =>
      Seq(TablePaths.absolute(root, r.path)) ++ r.deletionVector.filterNot(_.isInline).map(_.filePath(root))
    }
    (live ++ recent).map(key).toSet
  }

  private def key(p: Path): String = p.toUri.getPath

  /**
   * Every file under the table root outside `_delta_log` and hidden folders (`_x`, `.x`, but not
   * `_x=y`, nor `_change_data`). On an object store, one recursive listing of the prefix (no
   * directory markers needed); on a local disk, folder by folder, since Hadoop's recursive listing
   * of a local disk reads each file's permissions (a process per file without native libraries:
   * a minute for 20,000 files).
   */
  private def listTableFiles(fs: org.apache.hadoop.fs.FileSystem, root: Path, kept: Set[String]): Seq[FileStatus] = {
    val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
    def wanted(st: FileStatus): Boolean =
      Vacuum.wanted(st.getPath.toUri.getPath.stripPrefix(rootPath).split('/'), st.isDirectory, kept)
    val out = ArrayBuffer.empty[FileStatus]
    if (fs.getScheme == "file") {
      val folders = scala.collection.mutable.Queue(root)
      while (folders.nonEmpty) {
        fs.listStatus(folders.dequeue()).foreach { st =>
          if (st.isDirectory) { if (wanted(st)) folders.enqueue(st.getPath) }
          else if (wanted(st)) out += st
        }
      }
    } else {
      val files = fs.listFiles(root, true)
      while (files.hasNext) {
        val st = files.next()
        if (wanted(st)) out += st
      }
    }
    out.toSeq
  }

  /**
   * Whether VACUUM may delete under this path (its parts below the table root): not in hidden folders, nor in
   * `kept` top-level folders (what another format's metadata holds: [[keptFolders]]).
   */
  private[vacuum] def wanted(parts: Array[String], isDir: Boolean, kept: Set[String]): Boolean = {
    // Change data files are never live: past the retention they go, as Delta Lake's VACUUM does.
    val underChangeData = (parts.length > 1 || isDir) && parts.head == ChangeDataFeed.Folder
    !(parts.nonEmpty && (parts.length > 1 || isDir) && kept(parts.head)) &&
      !(if (underChangeData) parts.tail else parts).exists(TablePaths.isHidden)
  }

  /**
   * The top-level folders VACUUM leaves alone in a table of `metadata`: with UniForm, `metadata/` (the Iceberg
   * metadata, which the Delta log does not name), as Delta Lake's VACUUM hides it while UniForm is on.
   */
  def keptFolders(metadata: io.silt.actions.Metadata): Set[String] =
    if (TableProperties(metadata.configuration).icebergEnabled) Set(IcebergMetadataFiles.Folder) else Set.empty

  private def delete(spark: SparkSession, paths: Seq[String], conf: org.apache.hadoop.conf.Configuration): Long = {
    if (paths.size <= ParallelDeleteThreshold) {
      paths.count { p => val path = new Path(p); path.getFileSystem(conf).delete(path, false) }.toLong
    } else {
      val serializable = new SerializableConfiguration(conf)
      spark.sparkContext.parallelize(paths, math.max(1, paths.size / ParallelDeleteThreshold)).map { p =>
        val path = new Path(p)
        if (path.getFileSystem(serializable.value).delete(path, false)) 1L else 0L
      }.sum().toLong
    }
  }

  /** A commit with only commitInfo, recording VACUUM in the history; it reads nothing, so it never conflicts. */
  private def commitInfoOnly(spark: SparkSession, log: TableLog, op: Operation): Unit =
    OptimisticTransaction.start(spark, log).commit(Nil, op)
}
