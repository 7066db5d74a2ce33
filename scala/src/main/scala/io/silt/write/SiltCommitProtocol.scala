package io.silt.write

import java.util.UUID

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.{JobContext, TaskAttemptContext}
import org.apache.spark.internal.io.{FileCommitProtocol, FileNameSpec}
import org.apache.spark.internal.io.FileCommitProtocol.TaskCommitMessage
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils

/** A data file a task wrote: its path relative to the table root and its partition values. */
final case class WrittenFile(relativePath: String, partitionValues: Map[String, String], size: Long, modificationTime: Long)

/**
 * Writes task output straight to its final place under the table root: the files stay
 * invisible until the transaction commits them to the log, so there is nothing to rename,
 * and a failed job leaves only unreferenced files that VACUUM removes.
 */
final class SiltCommitProtocol(jobId: String, tablePath: String) extends FileCommitProtocol with Serializable {
  @transient private var taskFiles: ArrayBuffer[(String, Map[String, String])] = _
  @transient private var jobFiles: Seq[WrittenFile] = Nil

  /** The files of the committed job (driver side). */
  def writtenFiles: Seq[WrittenFile] = jobFiles

  override def setupJob(jobContext: JobContext): Unit = ()

  override def commitJob(jobContext: JobContext, taskCommits: Seq[TaskCommitMessage]): Unit =
    jobFiles = taskCommits.flatMap(_.obj.asInstanceOf[Seq[WrittenFile]])

  override def abortJob(jobContext: JobContext): Unit = ()

  override def setupTask(taskContext: TaskAttemptContext): Unit = taskFiles = ArrayBuffer.empty

  override def newTaskTempFile(taskContext: TaskAttemptContext, dir: Option[String], ext: String): String =
    newTaskTempFile(taskContext, dir, FileNameSpec("", ext))

  override def newTaskTempFile(taskContext: TaskAttemptContext, dir: Option[String], spec: FileNameSpec): String = {
    val split = taskContext.getTaskAttemptID.getTaskID.getId
    val name = f"${spec.prefix}part-$split%05d-${UUID.randomUUID()}${spec.suffix}"
    val relative = dir.map(d => s"$d/$name").getOrElse(name)
    taskFiles += ((relative, dir.map(SiltCommitProtocol.parsePartitionDir).getOrElse(Map.empty)))
    new Path(tablePath, relative).toString
  }

  override def newTaskTempFileAbsPath(taskContext: TaskAttemptContext, absoluteDir: String, spec: FileNameSpec): String =
    throw new UnsupportedOperationException("Silt writes every data file under the table root")

  override def newTaskTempFileAbsPath(taskContext: TaskAttemptContext, absoluteDir: String, ext: String): String =
    throw new UnsupportedOperationException("Silt writes every data file under the table root")

  override def commitTask(taskContext: TaskAttemptContext): TaskCommitMessage = {
    val root = new Path(tablePath)
    val fs = root.getFileSystem(taskContext.getConfiguration)
    val files = taskFiles.toSeq.flatMap { case (relative, values) =>
      val path = new Path(root, relative)
      // A task that produced no rows for a file may never have created it.
      if (fs.exists(path)) {
        val st = fs.getFileStatus(path)
        Some(WrittenFile(relative, values, st.getLen, st.getModificationTime))
      } else None
    }
    new TaskCommitMessage(files)
  }

  override def abortTask(taskContext: TaskAttemptContext): Unit = if (taskFiles != null) {
    val root = new Path(tablePath)
    val fs = root.getFileSystem(taskContext.getConfiguration)
    taskFiles.foreach { case (relative, _) => fs.delete(new Path(root, relative), false) }
  }
}

object SiltCommitProtocol {
  /** `a=1/b=x%20y` as {a: "1", b: "x y"}; the Hive default partition name is a null value. */
  def parsePartitionDir(dir: String): Map[String, String] = dir.split("/").filter(_.nonEmpty).map { part =>
    val eq = part.indexOf('=')
    val key = ExternalCatalogUtils.unescapePathName(part.substring(0, eq))
    val raw = ExternalCatalogUtils.unescapePathName(part.substring(eq + 1))
    key -> (if (raw == ExternalCatalogUtils.DEFAULT_PARTITION_NAME) null else raw)
  }.toMap
}
