package io.silt.log

import java.io.{BufferedReader, InputStreamReader}
import java.nio.charset.StandardCharsets
import java.nio.file.{FileAlreadyExistsException => NioFileExists, Files, Paths}
import java.util.UUID

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

/**
 * Lists, reads and writes `_delta_log` files over a Hadoop FileSystem. Commits are created
 * atomically and only if absent: a reader never sees a half-written commit, and of two writers
 * racing for one version exactly one wins.
 */
class LogStore(val hadoopConf: Configuration) {

  def fs(path: Path): FileSystem = path.getFileSystem(hadoopConf)

  /**
   * The entries of a directory whose names `keep` accepts, sorted by name; empty when it does
   * not exist. On a local disk only the accepted names are stat'ed, so listing the tail of a
   * long log costs the tail, not the history.
   */
  def list(dir: Path, keep: String => Boolean = _ => true): Seq[FileStatus] = {
    val fileSystem = fs(dir)
    if (fileSystem.getScheme == "file") {
      val names = Option(new java.io.File(dir.toUri).list()).getOrElse(Array.empty[String])
      names.filter(keep).sorted.toSeq.flatMap { name =>
        // a name may vanish between listing and stat (log cleanup, a failed writer's temp file)
        try Some(fileSystem.getFileStatus(new Path(dir, name))).filterNot(_.isDirectory)
        catch { case _: java.io.FileNotFoundException => None }
      }
    } else {
      try fileSystem.listStatus(dir).toSeq.filter(st => !st.isDirectory && keep(st.getPath.getName)).sortBy(_.getPath.getName)
      catch { case _: java.io.FileNotFoundException => Nil }
    }
  }

  def readLines(path: Path): Seq[String] = {
    val in = fs(path).open(path)
    try {
      val reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
      val out = ArrayBuffer.empty[String]
      var line = reader.readLine()
      while (line != null) {
        if (line.trim.nonEmpty) out += line
        line = reader.readLine()
      }
      out.toSeq
    } finally in.close()
  }

  /**
   * Writes `lines` to `path` unless it exists. Returns false when another writer got there first.
   * On the local file system a hard link gives the atomic create-if-absent that rename does not.
   */
  def writeIfAbsent(path: Path, lines: Seq[String]): Boolean = {
    val content = lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8)
    val fileSystem = fs(path)
    val tmp = new Path(path.getParent, s".${path.getName}.${UUID.randomUUID()}.tmp")
    if (fileSystem.getScheme == "file") {
      val target = Paths.get(path.toUri)
      val tmpFile = Paths.get(tmp.toUri)
      Files.createDirectories(target.getParent)
      Files.write(tmpFile, content)
      try {
        Files.createLink(target, tmpFile)
        true
      } catch {
        case _: NioFileExists => false
      } finally Files.deleteIfExists(tmpFile)
    } else {
      val out = fileSystem.create(tmp, false)
      try out.write(content) finally out.close()
      // HDFS-like file systems fail a rename onto an existing file instead of replacing it.
      val renamed = try fileSystem.rename(tmp, path) finally fileSystem.delete(tmp, false)
      renamed
    }
  }

  /** Writes a file that is not a commit (e.g. `_last_checkpoint`), replacing any old one. */
  def overwrite(path: Path, lines: Seq[String]): Unit = {
    val fileSystem = fs(path)
    val out = fileSystem.create(path, true)
    try out.write(lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8)) finally out.close()
  }
}
