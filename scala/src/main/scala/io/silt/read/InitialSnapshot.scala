package io.silt.read

import io.silt.actions.{ActionCodec, AddFile}
import io.silt.log.{Snapshot, TableLog}
import io.silt.state.StateReconstruction
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{col, struct, to_json}
import org.apache.spark.storage.StorageLevel

/**
 * A stream's initial snapshot: the snapshot's files numbered in a fixed order, by modification
 * time then path (as Delta Lake orders them), so that a restarted query numbers them alike.
 */
private[read] sealed trait InitialSnapshot {
  def size: Long
  /** The file numbered `i` (0 until size). */
  def apply(i: Long): AddFile
  /** The files numbered `from` until `until`. */
  def slice(from: Long, until: Long): IndexedSeq[AddFile] = (from until math.min(until, size)).map(apply)
  /** Frees what the numbering holds (the stream has read past it). */
  def release(): Unit = ()
}

private[read] object InitialSnapshot {

  /**
   * The numbering of `snapshot`'s files: the file list sorted on the driver, or, for a large table
   * whose file list the driver does not hold ([[Snapshot.fileListOffDriver]]), sorted by a Spark job
   * replaying its log into parts kept on disk, of which the driver reads one at a time.
   */
  def of(spark: SparkSession, log: TableLog, snapshot: Snapshot): InitialSnapshot = {
    val distributed = if (!snapshot.fileListOffDriver) None else StateReconstruction.of(log, snapshot).flatMap { replay =>
      replay.rows(spark, Long.MaxValue).map { rows =>
        val adds = rows.where(col("add").isNotNull)
        // the driver holds one part at once: a quarter of the files it may hold (50,000 by default)
        val perPart = math.max(1L, log.options.maxDriverFiles / 4)
        val parts = math.max(1L, math.min((snapshot.numFiles + perPart - 1) / perPart, 100000L)).toInt
        val sorted = adds.repartitionByRange(parts, col("add.modificationTime"), col("add.path"))
          .sortWithinPartitions(col("add.modificationTime"), col("add.path"))
          .select(to_json(struct(col("add"))))
          .rdd.map(_.getString(0)).persist(StorageLevel.DISK_ONLY)
        new Parts(spark, sorted)
      }
    }
    distributed.getOrElse(new OnDriver(snapshot.files.sortBy(a => (a.modificationTime, a.path))))
  }

  private final class OnDriver(files: IndexedSeq[AddFile]) extends InitialSnapshot {
    def size: Long = files.size
    def apply(i: Long): AddFile = files(i.toInt)
  }

  /** The numbering as an RDD's sorted parts (JSON of add actions), read one part at a time. */
  private final class Parts(spark: SparkSession, rdd: RDD[String]) extends InitialSnapshot {
    private val counts: Array[Long] = spark.sparkContext.runJob(rdd, (it: Iterator[String]) => it.size.toLong)
    private val starts: Array[Long] = counts.scanLeft(0L)(_ + _)
    private var held: Option[(Int, IndexedSeq[AddFile])] = None

    def size: Long = starts.last

    def apply(i: Long): AddFile = {
      require(i >= 0 && i < size, s"file $i of an initial snapshot of $size")
      // the part holding file i: the last whose start is at or before it
      val p = java.util.Arrays.binarySearch(starts, i) match {
        case found if found >= 0 => (found until counts.length).find(counts(_) > 0).get
        case insertion => -insertion - 2
      }
      val files = held.filter(_._1 == p).map(_._2).getOrElse {
        val lines = spark.sparkContext.runJob(rdd, (it: Iterator[String]) => it.toArray, Seq(p)).head
        val decoded = lines.toIndexedSeq.map(l => ActionCodec.fromJson(l).asInstanceOf[AddFile])
        held = Some(p -> decoded)
        decoded
      }
      files((i - starts(p)).toInt)
    }

    override def release(): Unit = { held = None; rdd.unpersist(blocking = false) }
  }
}
