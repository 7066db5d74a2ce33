package io.silt.dml

import io.silt.config.{SiltSettings, TableFileSystem}
import scala.collection.mutable

import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorStore, RoaringBitmapArray}
import io.silt.errors.InvalidTableOperationException
import io.silt.read.SiltFileIndex
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.paths.SparkPath
import org.apache.spark.sql.execution.datasources.{FilePartition, PartitionedFile}
import org.apache.spark.sql.functions.{col, collect_list}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.util.SerializableConfiguration

/** A data file's new deletion vector: the old one united with the rows a command deleted. */
final case class FileDeletion(filePath: String, dv: DeletionVectorDescriptor, newlyDeleted: Long)

/**
 * Marks rows deleted in deletion vectors, in the executors: gathers each file's (file, row index)
 * pairs, unites them with the file's current DV, and writes the new DVs, many to a file (one DV
 * file per task), returning their descriptors.
 */
object RowDeletion {

  /**
   * @param rows       a frame of (file path, row index) to delete
   * @param currentDvs the current DV of each data file that has one, by file path
   * @param byFile     whether every task of `rows` already holds all the rows of each file it holds
   *                   (a scan of unsplit files, filtered): the DVs are then written by those tasks,
   *                   without gathering the rows of a file by a shuffle
   */
  def markDeleted(spark: SparkSession, tablePath: Path, rows: DataFrame,
      currentDvs: Map[String, DeletionVectorDescriptor], byFile: Boolean = false): Seq[FileDeletion] = {
    val conf = new SerializableConfiguration(TableFileSystem.hadoopConf(spark, tablePath))
    val dvs = spark.sparkContext.broadcast(currentDvs)
    val table = tablePath.toString
    val inlineThreshold = SiltSettings.DvInlineThreshold(spark)
    val write = (entries: IndexedSeq[(String, Array[Long])]) =>
      writeDvs(entries, new Path(table), dvs.value, conf.value, inlineThreshold)
    val results = if (byFile) {
      rows.queryExecution.toRdd.mapPartitions(it => write(rowsByFile(it))).collect().toSeq
    } else {
      val grouped = rows.groupBy(col(RowChanges.PathColumn)).agg(collect_list(col(RowChanges.RowIndexColumn)))
        .coalesce(math.max(1, spark.sparkContext.defaultParallelism))
      grouped.queryExecution.toRdd.mapPartitions { it =>
        write(it.map(r => (r.getUTF8String(0).toString, r.getArray(1).toLongArray())).toIndexedSeq)
      }.collect().toSeq
    }
    dvs.destroy()
    results
  }

  /**
   * A session to scan the files of `index` with, each file read whole, when Spark's scan would read
   * each in one piece anyway (none is larger than the split size Spark chooses for them); None
   * when some file would be split, as reading it whole would cost parallelism.
   *
   * The session's split size makes Spark pack the files into a multiple of the cores. Such a scan
   * only marks rows, so its task count shapes no output; Spark's own packing puts, say, 64 equal
   * files into 3 tasks, and on 2 cores the third then runs alone. The split size is the smallest
   * for which Spark's own packing (files by decreasing size, each with its open cost) makes at
   * most that many tasks.
   */
  def wholeFileScan(spark: SparkSession, index: SiltFileIndex): Option[SparkSession] = {
    val directories = index.listFiles(Nil, Nil)
    val sparkSplit = FilePartition.maxSplitBytes(spark, directories)
    val files = directories.flatMap(_.files).map { f =>
      PartitionedFile(InternalRow.empty, SparkPath.fromFileStatus(f.fileStatus), 0, f.getLen, Array.empty, 0, f.getLen)
    }.sortBy(-_.length)
    if (files.exists(_.length > sparkSplit)) return None
    def tasksFor(splitBytes: Long) = FilePartition.getFilePartitions(spark, files, splitBytes).size
    val cores = math.max(1, spark.sparkContext.defaultParallelism)
    val tasks = (tasksFor(sparkSplit) + cores - 1) / cores * cores
    var (low, high) = (1L, files.iterator.map(_.length + spark.sessionState.conf.filesOpenCostInBytes).sum + 1)
    while (low < high) {
      val mid = low + (high - low) / 2
      if (tasksFor(mid) <= tasks) high = mid else low = mid + 1
    }
    val session = SparkInternals.cloneSession(spark)
    session.conf.set(SQLConf.FILES_MAX_PARTITION_BYTES.key, low)
    Some(session)
  }

  /** The (path, row index) rows of one task, gathered by file. */
  private def rowsByFile(it: Iterator[InternalRow]): IndexedSeq[(String, Array[Long])] = {
    val byPath = mutable.LinkedHashMap.empty[String, mutable.ArrayBuilder.ofLong]
    it.foreach(r => byPath.getOrElseUpdate(r.getUTF8String(0).toString, new mutable.ArrayBuilder.ofLong) += r.getLong(1))
    byPath.iterator.map { case (p, b) => p -> b.result() }.toIndexedSeq
  }

  /** Unites each file's rows with its current DV and writes the new DVs into one DV file. */
  private def writeDvs(entries: IndexedSeq[(String, Array[Long])], table: Path, current: Map[String, DeletionVectorDescriptor],
      conf: Configuration, inlineThreshold: Int): Iterator[FileDeletion] = {
    entries.find { case (_, idx) => idx.distinct.length != idx.length }.foreach { case (p, _) =>
      throw new InvalidTableOperationException(s"a row of $p is changed more than once by this command " +
        "(in MERGE: several source rows match one target row)")
    }
    val bitmaps = entries.map { case (p, idx) =>
      val added = RoaringBitmapArray.of(idx.toIndexedSeq: _*)
      current.get(p).map(d => DeletionVectorStore.load(d, table, p, conf).union(added)).getOrElse(added)
    }
    val descriptors = DeletionVectorStore.write(bitmaps, table, conf, inlineThreshold)
    entries.zip(descriptors).iterator.map { case ((p, idx), d) => FileDeletion(p, d, idx.length.toLong) }
  }
}
