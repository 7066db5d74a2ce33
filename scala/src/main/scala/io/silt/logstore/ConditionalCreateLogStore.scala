package io.silt.logstore

import java.nio.charset.StandardCharsets
import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

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
class ConditionalCreateLogStore(val hadoopConf: Configuration) extends LogStore with S3StartAfterListing {
  def name: String = LogStoreName.ConditionalCreate
  def atomicAcrossProcesses: Boolean = true

  protected def createIfAbsent(path: Path, content: Array[Byte]): Boolean = {
    if (!canCreateConditionally(path)) refuse(path, s"the file system of scheme ${path.toUri.getScheme} " +
      s"(${fs(path).getClass.getName}) cannot create a file only if it is absent (${ConditionalCreateLogStore.Option})")
    checkStoreHonoursCondition(path.getParent)
    createVerified(path, content)(conditionalPut(path, content))
  }

  /** Whether the file system can be asked for a create that fails if the file exists. */
  protected def canCreateConditionally(path: Path): Boolean = fs(path).hasPathCapability(path, ConditionalCreateLogStore.Option)

  /** Creates `path` with `content`, failing if it exists (S3: a PUT with If-None-Match: *). */
  protected def conditionalPut(path: Path, content: Array[Byte]): Unit = {
    val out = fs(path).createFile(path).overwrite(false).must(ConditionalCreateLogStore.Option, true).build()
    try out.write(content) finally out.close()
  }

  /**
   * A store that ignores If-None-Match (some S3-compatible servers) would let every racing writer
   * win. Before the first commit to a bucket, this JVM creates a probe object twice: the second
   * create must fail. Three requests per bucket per JVM.
   */
  private def checkStoreHonoursCondition(logDir: Path): Unit = {
    val bucket = logDir.toUri.getScheme + "://" + logDir.toUri.getAuthority
    val key = getClass.getName + " " + bucket
    if (!ConditionalCreateLogStore.honouring.containsKey(key)) {
      val probe = new Path(logDir, s".silt-conditional-probe-${UUID.randomUUID()}")
      val bytes = "probe\n".getBytes(StandardCharsets.UTF_8)
      val honoured = try {
        conditionalPut(probe, bytes)
        try { conditionalPut(probe, "again\n".getBytes(StandardCharsets.UTF_8)); false }
        catch { case _: java.io.IOException => readIfExists(probe).exists(java.util.Arrays.equals(_, bytes)) }
      } finally fs(probe).delete(probe, false)
      if (!honoured) refuse(logDir, s"the store behind $bucket replaced an object that a create with " +
        "If-None-Match: * should have left alone, so it does not honour conditional creates")
      ConditionalCreateLogStore.honouring.put(key, true)
    }
  }

  private def refuse(path: Path, why: String): Nothing = {
    val scheme = path.toUri.getScheme
    throw new AtomicCommitUnavailableException(path.toString, s"$why. On S3 use hadoop-aws 3.4.2 or later with " +
      "fs.s3a.create.conditional.enabled = true (the default) and a store that honours If-None-Match; or, if this " +
      s"Spark driver is the table's only writer, set ${LogStores.settingKey(scheme)} = ${LogStoreName.SingleDriver}")
  }
}

object ConditionalCreateLogStore {
  /** Hadoop's createFile option (and path capability) for a create that fails if the file exists. */
  val Option = "fs.option.create.conditional.overwrite"

  // Buckets (by store class) whose store was seen to refuse a second conditional create, by this JVM.
  private val honouring = new ConcurrentHashMap[String, Boolean]()
}
