package io.silt.logstore

import java.util.UUID

import io.silt.config.LogStoreName
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * File systems whose rename fails rather than replace an existing file, atomically: HDFS, ADLS
 * Gen2 with a hierarchical namespace (`abfs`, `abfss`), `viewfs`. A commit is written to a
 * temporary file and renamed onto its name.
 */
final class RenameLogStore(val hadoopConf: Configuration) extends LogStore {
  def name: String = LogStoreName.Rename
  def atomicAcrossProcesses: Boolean = true

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = {
    val fileSystem = fs(path)
    val tmp = new Path(path.getParent, s".${path.getName}.${UUID.randomUUID()}.tmp")
    val out = fileSystem.create(tmp, false)
    try out.write(content) finally out.close()
    try fileSystem.rename(tmp, path) finally fileSystem.delete(tmp, false)
  }
}
