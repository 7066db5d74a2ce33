package io.silt.logstore

import io.silt.config.LogStoreName
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * Google Cloud Storage (`gs`): `create(path, overwrite = false)`, which the GCS connector makes
 * an upload with the precondition that no generation of the object exists, so of two writers
 * racing for a version exactly one succeeds.
 */
final class NoOverwriteCreateLogStore(val hadoopConf: Configuration) extends LogStore {
  def name: String = LogStoreName.CreateNoOverwrite
  def atomicAcrossProcesses: Boolean = true

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean =
    createVerified(path, content) {
      val out = fs(path).create(path, false)
      try out.write(content) finally out.close()
    }
}
