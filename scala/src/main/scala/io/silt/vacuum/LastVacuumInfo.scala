package io.silt.vacuum

import scala.util.control.NonFatal

import io.silt.actions.ActionCodec
import io.silt.log.TableLog
import org.apache.hadoop.fs.Path

/**
 * `_delta_log/_last_vacuum_info`, as Delta Lake writes it: the newest commit whose removed files a
 * VACUUM has dealt with (`latestCommitVersionOutsideOfRetentionWindow`), where VACUUM LITE starts
 * reading the log next time. Only a hint for LITE: a missing or unreadable file means "from 0".
 */
object LastVacuumInfo {
  val FileName = "_last_vacuum_info"
  private val Field = "latestCommitVersionOutsideOfRetentionWindow"

  def read(log: TableLog): Option[Long] =
    try {
      val node = ActionCodec.mapper.readTree(log.store.readLines(path(log)).mkString("\n"))
      Option(node.get(Field)).filter(_.canConvertToLong).map(_.asLong).filter(_ >= 0)
    } catch { case NonFatal(_) => None }

  def write(log: TableLog, version: Long): Unit = {
    val node = ActionCodec.mapper.createObjectNode().put(Field, version)
    val p = path(log)
    val out = p.getFileSystem(log.hadoopConf).create(p, true)
    try out.write(ActionCodec.mapper.writeValueAsBytes(node)) finally out.close()
  }

  private def path(log: TableLog): Path = new Path(log.logPath, FileName)
}
