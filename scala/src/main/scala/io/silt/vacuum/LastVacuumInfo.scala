package io.silt.vacuum

import java.io.FileNotFoundException

import scala.util.control.NonFatal

import io.silt.actions.ActionCodec
import io.silt.log.TableLog
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging

/**
 * `_delta_log/_last_vacuum_info`, as Delta Lake writes it: the newest commit whose removed files a
 * VACUUM has dealt with (`latestCommitVersionOutsideOfRetentionWindow`), where VACUUM LITE starts
 * reading the log next time. Only a hint for LITE: a missing file or one without a version means "from 0" (which
 * only reads more of the log); a storage error reading it fails the VACUUM.
 */
object LastVacuumInfo extends Logging {
  val FileName = "_last_vacuum_info"
  private val Field = "latestCommitVersionOutsideOfRetentionWindow"

  def read(log: TableLog): Option[Long] = {
    val lines = try log.store.readLines(path(log)) catch { case _: FileNotFoundException => return None }
    // A storage error above fails VACUUM LITE; content no writer could have meant starts it from 0 (more work, no less).
    val version = try Option(ActionCodec.mapper.readTree(lines.mkString("\n")).get(Field)) catch { case NonFatal(_) => None }
    val valid = version.filter(_.canConvertToLong).map(_.asLong).filter(_ >= 0)
    if (valid.isEmpty) logWarning(s"Silt: ${path(log)} does not hold a version; VACUUM LITE reads the log from version 0")
    valid
  }

  def write(log: TableLog, version: Long): Unit = {
    val node = ActionCodec.mapper.createObjectNode().put(Field, version)
    val p = path(log)
    val out = p.getFileSystem(log.hadoopConf).create(p, true)
    try out.write(ActionCodec.mapper.writeValueAsBytes(node)) finally out.close()
  }

  private def path(log: TableLog): Path = new Path(log.logPath, FileName)
}
