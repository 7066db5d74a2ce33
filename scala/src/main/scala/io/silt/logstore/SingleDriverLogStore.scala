package io.silt.logstore

import java.util.concurrent.ConcurrentHashMap

import io.silt.config.LogStoreName
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * A store without an atomic create-if-absent, for a table that one Spark driver alone writes
 * (the user's promise, made by choosing it): writers of this JVM take a lock per log directory,
 * check that the file is absent and create it. Writers in other processes are not excluded; as Delta Lake's
 * single-driver S3 store, it is safe only under that promise.
 */
final class SingleDriverLogStore(val hadoopConf: Configuration) extends LogStore with S3StartAfterListing {
  def name: String = LogStoreName.SingleDriver
  def atomicAcrossProcesses: Boolean = false

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = {
    val fileSystem = fs(path)
    val dir = path.getParent.makeQualified(fileSystem.getUri, fileSystem.getWorkingDirectory).toString
    SingleDriverLogStore.locks.computeIfAbsent(dir, _ => new Object).synchronized {
      if (fileSystem.exists(path)) false
      else {
        val out = fileSystem.create(path, false)
        try out.write(content) finally out.close()
        true
      }
    }
  }
}

private object SingleDriverLogStore {
  // One lock per log directory this JVM has written to.
  val locks = new ConcurrentHashMap[String, Object]()
}
