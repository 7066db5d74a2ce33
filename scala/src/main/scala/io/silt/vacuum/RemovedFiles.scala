package io.silt.vacuum

import scala.collection.mutable

import io.silt.errors.CannotVacuumLiteException
import io.silt.actions.{AddCDCFile, RemoveFile, TablePaths}
import io.silt.log.{Snapshot, TableLog}
import org.apache.hadoop.fs.Path

/** A file VACUUM may delete, with its size as the log or the listing knows it. */
final case class VacuumCandidate(path: Path, size: Long, isDeletionVector: Boolean)

/**
 * VACUUM LITE's candidates: the files that the commits of the window removed (data files, their
 * deletion vectors, change data files), read from the log alone, so that no directory of the
 * table is listed. The window runs from the commit after the last VACUUM's
 * (`_last_vacuum_info`) to the newest commit made before the retention cutoff.
 */
object RemovedFiles {
  /** The commits `from` to `to` (inclusive) whose removals VACUUM LITE deletes. */
  final case class Window(from: Long, to: Long)

  /**
   * The window for `cutoff` (ms), or None when no commit is both older than the cutoff and newer than the
   * last VACUUM's. Refused when the log no longer holds a commit of the window: its removals would be missed.
   */
  def window(log: TableLog, snapshot: Snapshot, cutoff: Long): Option[Window] = {
    val commits = log.commits()
    // A hint past the current version belongs to an earlier table at this path.
    val from = LastVacuumInfo.read(log).filter(_ <= snapshot.version).map(_ + 1).getOrElse(0L)
    val to = commits.lastAtOrBefore(cutoff).map(_.version).getOrElse(-1L)
    val earliest = commits.entries.headOption.map(_.version).getOrElse(snapshot.version)
    // Commits before `earliest` are gone; with no listed commit before the cutoff, they were older still.
    if (earliest > from && (to < 0 || to >= from)) {
      throw new CannotVacuumLiteException(log.tablePath.toString, s"VACUUM LITE cannot vacuum ${log.tablePath}: it " +
        s"must read the removals of commits $from to ${math.max(to, earliest - 1)}, but the log begins at commit " +
        s"$earliest (older commits were cleaned up after a checkpoint). Run VACUUM FULL once (it lists the table's " +
        "files instead); LITE then starts after it.")
    }
    if (to >= from) Some(Window(from, to)) else None
  }

  /** The newest commit made at or before `cutoff` (ms), if any. */
  def newestBefore(log: TableLog, cutoff: Long): Option[Long] = log.commits().lastAtOrBefore(cutoff).map(_.version)

  /** Files under the table root that the window's commits removed and the table no longer needs (`keep`: by path). */
  def candidates(log: TableLog, window: Window, keep: String => Boolean): Seq[VacuumCandidate] = {
    val root = log.tablePath
    val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
    val found = mutable.LinkedHashMap.empty[String, VacuumCandidate]
    def offer(p: Path, size: Long, dv: Boolean): Unit = {
      val key = p.toUri.getPath
      // a shallow clone's removals name its source's files: those are never the clone's to delete
      val inside = key.startsWith(rootPath) && Option(p.toUri.getScheme).forall(s => Option(root.toUri.getScheme).forall(_ == s))
      if (inside && !keep(key) && !found.contains(key)) found(key) = VacuumCandidate(p, size, dv)
    }
    (window.from to window.to).foreach { v =>
      log.readCommit(v).foreach {
        case r: RemoveFile =>
          offer(TablePaths.absolute(root, r.path), r.size.getOrElse(0L), dv = false)
          r.deletionVector.filterNot(_.isInline).foreach(d => offer(d.filePath(root), d.sizeInBytes.toLong, dv = true))
        case c: AddCDCFile => offer(TablePaths.absolute(root, c.path), c.size, dv = false)
        case _ =>
      }
    }
    found.values.toSeq
  }
}
