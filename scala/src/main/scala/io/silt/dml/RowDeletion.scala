package io.silt.dml

import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorStore, RoaringBitmapArray}
import io.silt.errors.InvalidTableOperationException
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, collect_list}
import org.apache.spark.util.SerializableConfiguration

/** A data file's new deletion vector: the old one united with the rows a command deleted. */
final case class FileDeletion(filePath: String, dv: DeletionVectorDescriptor, newlyDeleted: Long)

/**
 * Marks rows deleted in deletion vectors, in the executors: groups the (file, row index) pairs
 * by file, unites each file's rows with its current DV, and writes the new DVs, many to a file
 * (one DV file per task), returning their descriptors.
 */
object RowDeletion {

  /**
   * @param rows       a frame of (file path, row index) to delete
   * @param currentDvs the current DV of each data file that has one, by file path
   */
  def markDeleted(spark: SparkSession, tablePath: Path, rows: DataFrame,
      currentDvs: Map[String, DeletionVectorDescriptor]): Seq[FileDeletion] = {
    val grouped = rows.groupBy(col(RowChanges.PathColumn)).agg(collect_list(col(RowChanges.RowIndexColumn)))
      .coalesce(math.max(1, spark.sparkContext.defaultParallelism))
    val conf = new SerializableConfiguration(spark.sessionState.newHadoopConf())
    val dvs = spark.sparkContext.broadcast(currentDvs)
    val table = tablePath.toString
    val inlineThreshold = spark.conf.get("spark.silt.deletionVectors.inlineThreshold", "0").toInt
    val results = grouped.queryExecution.toRdd.mapPartitions { it =>
      val entries = it.map { r =>
        val indexes = r.getArray(1).toLongArray()
        (r.getUTF8String(0).toString, indexes)
      }.toIndexedSeq
      val duplicated = entries.find { case (_, idx) => idx.distinct.length != idx.length }
      duplicated.foreach { case (p, _) =>
        throw new InvalidTableOperationException(s"a row of $p is changed more than once by this command " +
          "(in MERGE: several source rows match one target row)")
      }
      val bitmaps = entries.map { case (p, idx) =>
        val added = RoaringBitmapArray.of(idx.toIndexedSeq: _*)
        dvs.value.get(p).map(d => DeletionVectorStore.load(d, new Path(table), p, conf.value).union(added)).getOrElse(added)
      }
      val descriptors = DeletionVectorStore.write(bitmaps, new Path(table), conf.value, inlineThreshold)
      entries.zip(descriptors).iterator.map { case ((p, idx), d) => FileDeletion(p, d, idx.length.toLong) }
    }.collect().toSeq
    dvs.destroy()
    results
  }
}
