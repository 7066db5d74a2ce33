package io.silt.logstore

import java.nio.file.{FileAlreadyExistsException => NioFileExists, Files, Paths}
import java.util.UUID

import io.silt.config.LogStoreName
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, Path}

/**
 * The local disk (`file:`): a commit is written to a temporary file and hard-linked to its name,
 * the atomic create-if-absent that rename does not give (POSIX rename replaces).
 */
final class LocalLogStore(val hadoopConf: Configuration) extends LogStore {
  def name: String = LogStoreName.Link
  def atomicAcrossProcesses: Boolean = true

  /** Only the accepted names are stat'ed, so listing the tail of a long log costs the tail, not the history. */
  override def list(dir: Path, from: String, keep: String => Boolean): Seq[FileStatus] = {
    val fileSystem = fs(dir)
    val names = Option(new java.io.File(dir.toUri).list()).getOrElse(Array.empty[String])
    names.filter(n => n >= from && keep(n)).sorted.toSeq.flatMap { name =>
      // a name may vanish between listing and stat (log cleanup, a failed writer's temp file)
      try Some(fileSystem.getFileStatus(new Path(dir, name))).filterNot(_.isDirectory)
      catch { case _: java.io.FileNotFoundException => None }
    }
  }

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = {
    val target = Paths.get(path.toUri)
    val tmpFile = target.resolveSibling(s".${path.getName}.${UUID.randomUUID()}.tmp")
    Files.createDirectories(target.getParent)
    Files.write(tmpFile, content)
    try {
      Files.createLink(target, tmpFile)
      true
    } catch {
      case _: NioFileExists => false
    } finally Files.deleteIfExists(tmpFile)
  }
}
