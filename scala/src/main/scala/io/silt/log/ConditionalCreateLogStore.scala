package io.silt.log

import io.silt.config.LogStoreName
import io.silt.errors.AtomicCommitUnavailableException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/**
 * S3 through S3A (Hadoop 3.4.2 and later): a commit is one PUT with `If-None-Match: *`, which the
 * store refuses (412) when the object exists, so two writers racing for a version in any number
 * of processes or clusters never both win. Never a rename: on S3 that is a copy after an
 * existence check, and a racing writer's commit would be silently replaced.
 */
final class ConditionalCreateLogStore(val hadoopConf: Configuration) extends LogStore with S3StartAfterListing {
  def name: String = LogStoreName.ConditionalCreate
  def atomicAcrossProcesses: Boolean = true

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = {
    val fileSystem = fs(path)
    if (!fileSystem.hasPathCapability(path, ConditionalCreateLogStore.Option)) {
      throw new AtomicCommitUnavailableException(path.toString, s"the file system of scheme ${path.toUri.getScheme} " +
        s"(${fileSystem.getClass.getName}) cannot create a file only if it is absent " +
        s"(${ConditionalCreateLogStore.Option}). On S3 use hadoop-aws 3.4.2 or later with " +
        "fs.s3a.create.conditional.enabled = true (the default) and a store that honours If-None-Match; or, if this " +
        s"Spark driver is the table's only writer, set ${LogStores.settingKey(path.toUri.getScheme)} = ${LogStoreName.SingleDriver}")
    }
    createVerified(path, content) {
      val out = fileSystem.createFile(path).overwrite(false).must(ConditionalCreateLogStore.Option, true).build()
      try out.write(content) finally out.close()
    }
  }
}

object ConditionalCreateLogStore {
  /** Hadoop's createFile option (and path capability) for a create that fails if the file exists. */
  val Option = "fs.option.create.conditional.overwrite"
}
