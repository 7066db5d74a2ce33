package io.silt.optimize

import org.apache.spark.sql.Row
import org.apache.spark.sql.types._

/** Sizes of a set of files: min, max, average, count and total. */
final case class FileSizeStats(min: Long, max: Long, avg: Double, totalFiles: Long, totalSize: Long) {
  def toRow: Row = Row(min, max, avg, totalFiles, totalSize)
}

object FileSizeStats {
  def of(sizes: Seq[Long]): FileSizeStats =
    if (sizes.isEmpty) FileSizeStats(0, 0, 0.0, 0, 0)
    else FileSizeStats(sizes.min, sizes.max, sizes.sum.toDouble / sizes.size, sizes.size, sizes.sum)

  val schema: StructType = StructType(Seq(
    StructField("min", LongType), StructField("max", LongType), StructField("avg", DoubleType),
    StructField("totalFiles", LongType), StructField("totalSize", LongType)))
}

/** What a Z-order rewrite did: its strategy, input, and output files and curve blocks. */
final case class ZOrderStats(strategyName: String, inputNumFiles: Long, inputBytes: Long,
    numOutputFiles: Long, numOutputCubes: Long) {
  def toRow: Row = Row(strategyName, inputNumFiles, inputBytes, numOutputFiles, numOutputCubes)
}

object ZOrderStats {
  val schema: StructType = StructType(Seq(
    StructField("strategyName", StringType), StructField("inputNumFiles", LongType),
    StructField("inputBytes", LongType), StructField("numOutputFiles", LongType),
    StructField("numOutputCubes", LongType)))
}

/**
 * What an OPTIMIZE of a clustered table did: the bytes it considered and left alone, and for each
 * clustering column the share of files a 1% range must read before and after ([[LayoutQuality]]).
 */
final case class ClusteringStats(columns: Seq[String], bytesConsidered: Long, filesLeftAlone: Long, bytesLeftAlone: Long,
    rangeReadBefore: Map[String, Double], rangeReadAfter: Map[String, Double]) {
  def toRow: Row = Row(columns, bytesConsidered, filesLeftAlone, bytesLeftAlone, rangeReadBefore, rangeReadAfter)

  /** In operationMetrics (whole numbers), the figures are per mille. */
  def operationMetrics: Map[String, Long] = Map("numBytesConsidered" -> bytesConsidered,
    "numFilesLeftAlone" -> filesLeftAlone, "numBytesLeftAlone" -> bytesLeftAlone) ++
    rangeReadBefore.map { case (c, f) => s"rangeReadPermilleBefore.$c" -> math.round(f * 1000) } ++
    rangeReadAfter.map { case (c, f) => s"rangeReadPermilleAfter.$c" -> math.round(f * 1000) }
}

object ClusteringStats {
  val schema: StructType = StructType(Seq(
    StructField("clusteringColumns", ArrayType(StringType)), StructField("numBytesConsidered", LongType),
    StructField("numFilesLeftAlone", LongType), StructField("numBytesLeftAlone", LongType),
    StructField("rangeReadFractionBefore", MapType(StringType, DoubleType)),
    StructField("rangeReadFractionAfter", MapType(StringType, DoubleType))))
}

/** The result of one OPTIMIZE: returned as a row and recorded in the commit's operationMetrics. */
final case class OptimizeMetrics(
    numFilesAdded: Long,
    numFilesRemoved: Long,
    filesAdded: FileSizeStats,
    filesRemoved: FileSizeStats,
    partitionsOptimized: Long,
    numBatches: Long,
    totalConsideredFiles: Long,
    totalFilesSkipped: Long,
    zOrderStats: Option[ZOrderStats],
    clusteringStats: Option[ClusteringStats] = None) {

  def toRow: Row = Row(numFilesAdded, numFilesRemoved, filesAdded.toRow, filesRemoved.toRow,
    partitionsOptimized, numBatches, totalConsideredFiles, totalFilesSkipped, zOrderStats.map(_.toRow).orNull,
    clusteringStats.map(_.toRow).orNull)

  def operationMetrics: Map[String, Long] = Map(
    "numAddedFiles" -> numFilesAdded,
    "numRemovedFiles" -> numFilesRemoved,
    "numAddedBytes" -> filesAdded.totalSize,
    "numRemovedBytes" -> filesRemoved.totalSize,
    "minFileSize" -> filesAdded.min,
    "maxFileSize" -> filesAdded.max,
    "partitionsOptimized" -> partitionsOptimized,
    "numBatches" -> numBatches,
    "totalConsideredFiles" -> totalConsideredFiles,
    "totalFilesSkipped" -> totalFilesSkipped) ++
    zOrderStats.map(z => Map("numOutputCubes" -> z.numOutputCubes)).getOrElse(Map.empty) ++
    clusteringStats.map(_.operationMetrics).getOrElse(Map.empty)
}

object OptimizeMetrics {
  val schema: StructType = StructType(Seq(
    StructField("numFilesAdded", LongType),
    StructField("numFilesRemoved", LongType),
    StructField("filesAdded", FileSizeStats.schema),
    StructField("filesRemoved", FileSizeStats.schema),
    StructField("partitionsOptimized", LongType),
    StructField("numBatches", LongType),
    StructField("totalConsideredFiles", LongType),
    StructField("totalFilesSkipped", LongType),
    StructField("zOrderStats", ZOrderStats.schema),
    StructField("clusteringStats", ClusteringStats.schema)))

  /** The command's output: the table path and its metrics, as Delta's OPTIMIZE returns them. */
  val outputSchema: StructType = StructType(Seq(
    StructField("path", StringType), StructField("metrics", schema)))
}
