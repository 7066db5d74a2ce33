package io.silt.stats

import java.util.concurrent.ConcurrentHashMap

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{WriteJobStatsTracker, WriteTaskStats, WriteTaskStatsTracker}

/** Per-file statistics JSON of one write task, keyed by file name. */
final case class FileStatsTaskResult(statsByFileName: Map[String, String]) extends WriteTaskStats

/**
 * Collects per-file statistics inside Spark's file writer, from the rows as they are written:
 * no second pass over the data. The driver-side instance gathers every task's results.
 */
final class StatsJobTracker(columns: IndexedSeq[StatsColumn]) extends WriteJobStatsTracker {
  @transient private lazy val collected = new ConcurrentHashMap[String, String]()

  override def newTaskInstance(): WriteTaskStatsTracker = new StatsTaskTracker(columns)

  override def processStats(stats: Seq[WriteTaskStats], jobCommitTime: Long): Unit =
    stats.foreach { case r: FileStatsTaskResult => collected.putAll(r.statsByFileName.asJava); case _ => }

  /** The statistics JSON of a written file, by its name. */
  def statsFor(fileName: String): Option[String] = Option(collected.get(fileName))
}

/** Accumulates statistics for the files one task writes. */
final class StatsTaskTracker(columns: IndexedSeq[StatsColumn]) extends WriteTaskStatsTracker {
  private val open = mutable.HashMap.empty[String, FileStatsAccumulator]
  private val done = mutable.HashMap.empty[String, String]
  private var lastPath: String = _
  private var lastAcc: FileStatsAccumulator = _

  override def newPartition(partitionValues: InternalRow): Unit = ()

  override def newFile(filePath: String): Unit = open(filePath) = new FileStatsAccumulator(columns)

  override def closeFile(filePath: String): Unit = open.remove(filePath).foreach { acc =>
    done(new Path(filePath).getName) = acc.toJson
    if (lastPath == filePath) { lastPath = null; lastAcc = null }
  }

  override def newRow(filePath: String, row: InternalRow): Unit = {
    // The writer passes the same path instance for every row of a file.
    if (!(filePath eq lastPath)) {
      lastPath = filePath
      lastAcc = open.getOrElseUpdate(filePath, new FileStatsAccumulator(columns))
    }
    lastAcc.update(row)
  }

  override def getFinalStats(taskCommitTime: Long): WriteTaskStats = {
    open.keys.toSeq.foreach(closeFile)
    FileStatsTaskResult(done.toMap)
  }
}
