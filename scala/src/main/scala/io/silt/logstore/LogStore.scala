package io.silt.logstore

import java.io.{BufferedReader, ByteArrayOutputStream, IOException, InputStreamReader}
import java.nio.charset.StandardCharsets

import scala.collection.mutable.ArrayBuffer

import io.silt.errors.CommitOutcomeUnknownException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

/**
 * Lists, reads and writes `_delta_log` files of one kind of storage. Commits are created
 * atomically and only if absent: a reader never sees a half-written commit, and of two writers
 * racing for one version at most one wins. How a store achieves that differs per storage
 * ([[LogStores]] picks one per URI scheme), and so does how far the guarantee reaches.
 */
trait LogStore {
  def hadoopConf: Configuration

  /** The name a user gives this store in `spark.silt.logStore.<scheme>.impl`. */
  def name: String

  /** Whether writers in different processes (or clusters) racing for one file can never both win. */
  def atomicAcrossProcesses: Boolean

  def fs(path: Path): FileSystem = path.getFileSystem(hadoopConf)

  /**
   * The files of a directory whose names are at least `from` and that `keep` accepts, sorted by
   * name; empty when it does not exist.
   */
  def list(dir: Path, from: String = "", keep: String => Boolean = _ => true): Seq[FileStatus] =
    try StorageFailure.retrying(s"the listing of $dir")(fs(dir).listStatus(dir).toSeq)
      .filter(st => !st.isDirectory && st.getPath.getName >= from && keep(st.getPath.getName))
      .sortBy(_.getPath.getName)
    catch { case _: java.io.FileNotFoundException => Nil }

  /**
   * The lines of a log file (empty ones left out) that `keep` accepts, read again after a storage
   * failure. The others are never held: a commit of millions of adds is read for its few others.
   */
  def readLines(path: Path, keep: String => Boolean = _ => true): Seq[String] =
    StorageFailure.retrying(path.toString)(readLinesOnce(path, keep, Int.MaxValue))

  /** The first line of a log file that is not empty (what a commit's timestamp is read from), the rest left unread. */
  def firstLine(path: Path): Option[String] =
    StorageFailure.retrying(path.toString)(readLinesOnce(path, _ => true, 1)).headOption

  private def readLinesOnce(path: Path, keep: String => Boolean, limit: Int): Seq[String] = {
    val in = fs(path).open(path)
    try {
      val reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
      val out = ArrayBuffer.empty[String]
      var line = reader.readLine()
      while (line != null && out.size < limit) {
        if (line.trim.nonEmpty && keep(line)) out += line
        line = reader.readLine()
      }
      out.toSeq
    } finally in.close()
  }

  /** Writes `lines` to `path` unless it exists. Returns false when another writer got there first. */
  final def writeIfAbsent(path: Path, lines: Seq[String]): Boolean =
    createIfAbsent(path, lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8))

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean

  /** Writes a file that is not a commit (e.g. `_last_checkpoint`), replacing any old one. */
  def overwrite(path: Path, lines: Seq[String]): Unit = {
    val out = fs(path).create(path, true)
    try out.write(lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8)) finally out.close()
  }

  /** The bytes of `path`, or None when it does not exist. */
  protected def readIfExists(path: Path): Option[Array[Byte]] = StorageFailure.retrying(path.toString)(readIfExistsOnce(path))

  private def readIfExistsOnce(path: Path): Option[Array[Byte]] = {
    val in = try fs(path).open(path) catch { case _: java.io.FileNotFoundException => return None }
    try {
      val out = new ByteArrayOutputStream()
      in.transferTo(out)
      Some(out.toByteArray)
    } catch {
      case _: java.io.FileNotFoundException => None
    } finally in.close()
  }

  /**
   * Creates `path` with `create`, which must fail rather than replace an existing file, and tells
   * whether `content` is what the path now holds. A failed create is judged by reading the file
   * back: every commit's content is unique (its commitInfo carries a fresh txnId, the write id), so
   * finding our own bytes means that our request landed even though it reported a failure (a PUT
   * retried after its first attempt succeeded gets 412); other bytes mean another writer won. A
   * failure that left no file (a 409 from a store that saw a concurrent request) is retried. When
   * the file cannot be read back either, whether the commit landed is unknown, and said so
   * (`CommitOutcomeUnknownException`), never reported as a failure.
   */
  protected def createVerified(path: Path, content: Array[Byte], attempts: Int = 3)(create: => Unit): Boolean = {
    var attempt = 1
    while (true) {
      try {
        create
        return true
      } catch {
        case e: IOException =>
          val found = try readIfExists(path) catch {
            case unread: IOException if StorageFailure.of(unread).isDefined =>
              throw new CommitOutcomeUnknownException(path.toString, LogStore.txnIdOf(content),
                s"${StorageFailure.of(e).getOrElse(e)}; reading it back: ${StorageFailure.of(unread).get}", e)
          }
          found match {
            case Some(existing) => return java.util.Arrays.equals(existing, content)
            case None if attempt < attempts => Thread.sleep(50L * attempt)
            case None => throw e
          }
      }
      attempt += 1
    }
    throw new IllegalStateException("unreachable")
  }
}

object LogStore {
  private val TxnId = "\"txnId\"\\s*:\\s*\"([^\"]+)\"".r

  /** The txnId a commit's commitInfo (its first line) carries, if any: what names the commit in an error. */
  def txnIdOf(content: Array[Byte]): Option[String] = {
    val first = new String(content, StandardCharsets.UTF_8).linesIterator.take(1).mkString
    TxnId.findFirstMatchIn(first).map(_.group(1))
  }
}
