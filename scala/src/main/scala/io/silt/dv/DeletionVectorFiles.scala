package io.silt.dv

import io.silt.config.{SiltSettings, TableFileSystem}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/** Reads a data file's deletion vector (file path as the action names it); no vector: no row deleted. */
trait DeletionVectorReader {
  def rows(file: String, dv: Option[DeletionVectorDescriptor]): RoaringBitmapArray
}

/** Writes deletion vectors, in one DV file, returning their descriptors in order. */
trait DeletionVectorWriter {
  def write(bitmaps: Seq[RoaringBitmapArray]): Seq[DeletionVectorDescriptor]
}

/** The deletion vectors of the table at `tablePath`, read and written in the driver with the session's settings. */
final case class DeletionVectorFiles(spark: SparkSession, tablePath: Path) extends DeletionVectorReader with DeletionVectorWriter {
  private lazy val conf = TableFileSystem.hadoopConf(spark, tablePath)

  override def rows(file: String, dv: Option[DeletionVectorDescriptor]): RoaringBitmapArray =
    dv.map(DeletionVectorStore.load(_, tablePath, file, conf)).getOrElse(new RoaringBitmapArray())

  override def write(bitmaps: Seq[RoaringBitmapArray]): Seq[DeletionVectorDescriptor] =
    DeletionVectorStore.write(bitmaps, tablePath, conf, SiltSettings.DvInlineThreshold(spark))
}
