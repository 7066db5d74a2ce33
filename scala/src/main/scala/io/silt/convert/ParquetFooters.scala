package io.silt.convert

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.parquet.io.api.Binary
import org.apache.parquet.schema.PrimitiveComparator
import org.apache.spark.sql.SparkSession
import org.apache.spark.util.SerializableConfiguration

/** A file of the folder to convert: where it is, relative to the table root (decoded), and its size and time. */
final case class SourceFile(path: String, relative: String, size: Long, modificationTime: Long)

/** One column chunk's statistics over all row groups: null count and bounds (Parquet's boxed values; binary as bytes). */
final case class ChunkStats(nullCount: Option[Long], min: Option[Any], max: Option[Any])

/** What CONVERT needs of one Parquet file, read from its footer alone (no data page is read). */
final case class FooterSummary(file: SourceFile, schema: String, numRows: Long, columns: Map[Seq[String], ChunkStats])

/** Reads the footers of many Parquet files in a Spark job; a file that is not Parquet comes back with its error. */
object ParquetFooters {
  /** Files per task: footers are small reads, so a task reads many. */
  private val FilesPerTask = 200

  def read(spark: SparkSession, files: Seq[SourceFile], conf: Configuration): Seq[Either[(SourceFile, String), FooterSummary]] = {
    if (files.isEmpty) return Nil
    val serializable = new SerializableConfiguration(conf)
    val slices = math.max(1, math.min(files.size / FilesPerTask + 1, spark.sparkContext.defaultParallelism * 4))
    spark.sparkContext.parallelize(files, slices).map { f =>
      try Right(summarize(f, serializable.value))
      catch { case NonFatal(e) => Left(f -> Option(e.getMessage).getOrElse(e.getClass.getName)) }
    }.collect().toSeq
  }

  private def summarize(file: SourceFile, conf: Configuration): FooterSummary = {
    val reader = ParquetFileReader.open(HadoopInputFile.fromPath(new Path(file.path), conf))
    try {
      val footer = reader.getFooter
      val blocks = footer.getBlocks.asScala.toSeq
      val byColumn = blocks.flatMap(_.getColumns.asScala).groupBy(c => c.getPath.toArray.toSeq)
      val columns = byColumn.map { case (path, chunks) =>
        val stats = chunks.map(_.getStatistics)
        val nulls = if (stats.forall(s => s != null && s.isNumNullsSet)) Some(stats.map(_.getNumNulls).sum) else None
        val nonNullChunks = chunks.zip(stats).filter { case (c, s) => s == null || !s.isNumNullsSet || c.getValueCount > s.getNumNulls }
        val bounded = nonNullChunks.forall { case (_, s) => s != null && s.hasNonNullValue }
        val (lo, hi) = if (!bounded || nonNullChunks.isEmpty) (None, None) else {
          val ss = nonNullChunks.map(_._2)
          val cmp = ss.head.comparator().asInstanceOf[PrimitiveComparator[Any]]
          (Some(ss.map(s => s.genericGetMin.asInstanceOf[Any]).reduce((a, b) => if (cmp.compare(a, b) <= 0) a else b)),
            Some(ss.map(s => s.genericGetMax.asInstanceOf[Any]).reduce((a, b) => if (cmp.compare(a, b) >= 0) a else b)))
        }
        path -> ChunkStats(nulls, lo.map(plain), hi.map(plain))
      }
      FooterSummary(file, footer.getFileMetaData.getSchema.toString, blocks.map(_.getRowCount).sum, columns)
    } finally reader.close()
  }

  /** A Parquet value as a plain serializable one: Binary as its bytes. */
  private def plain(v: Any): Any = v match {
    case b: Binary => b.getBytes
    case other => other
  }

}
