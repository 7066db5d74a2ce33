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

/** A number of files and their bytes, as Delta Lake's OPTIMIZE metrics count them. */
final case class FileCount(num: Long, size: Long) {
  def toRow: Row = Row(num, size)
}

object FileCount {
  def of(sizes: Seq[Long]): FileCount = FileCount(sizes.size, sizes.sum)
  /** `countName`: Delta Lake calls the count `num` in zOrderStats and `numFiles` in clusteringStats. */
  def schema(countName: String): StructType =
    StructType(Seq(StructField(countName, LongType), StructField("size", LongType)))
}

/**
 * What a Z-order rewrite did, in Delta Lake's fields: its strategy, the input files (Silt keeps no
 * ZCube tags, so every input file counts as "other"), the files merged and the curve blocks written.
 */
final case class ZOrderStats(strategyName: String, input: FileCount, numOutputCubes: Long) {
  def toRow: Row = Row(strategyName, FileCount(0, 0).toRow, input.toRow, 0L, input.toRow, numOutputCubes, null)
}

object ZOrderStats {
  val schema: StructType = StructType(Seq(
    StructField("strategyName", StringType), StructField("inputCubeFiles", FileCount.schema("num")),
    StructField("inputOtherFiles", FileCount.schema("num")), StructField("inputNumCubes", LongType),
    StructField("mergedFiles", FileCount.schema("num")), StructField("numOutputCubes", LongType),
    StructField("mergedNumCubes", LongType)))
}

/**
 * What an OPTIMIZE of a clustered table did: Delta Lake's fields (files already clustered and left
 * alone as its "ZCube" input, the rewritten files as the others and the merged), then Silt's: the
 * bytes considered and for each clustering column the share of files a 1% range must read before and
 * after ([[LayoutQuality]]).
 */
final case class ClusteringStats(columns: Seq[String], considered: FileCount, leftAlone: FileCount, rewritten: FileCount,
    rangeReadBefore: Map[String, Double], rangeReadAfter: Map[String, Double]) {
  def toRow: Row = Row(leftAlone.toRow, rewritten.toRow, null, rewritten.toRow, null,
    columns, considered.size, leftAlone.num, leftAlone.size, rangeReadBefore, rangeReadAfter)

  /** In operationMetrics (whole numbers), the figures are per mille. */
  def operationMetrics: Map[String, Long] = Map("numBytesConsidered" -> considered.size,
    "numFilesLeftAlone" -> leftAlone.num, "numBytesLeftAlone" -> leftAlone.size) ++
    rangeReadBefore.map { case (c, f) => s"rangeReadPermilleBefore.$c" -> math.round(f * 1000) } ++
    rangeReadAfter.map { case (c, f) => s"rangeReadPermilleAfter.$c" -> math.round(f * 1000) }
}

object ClusteringStats {
  val schema: StructType = StructType(Seq(
    StructField("inputZCubeFiles", FileCount.schema("numFiles")), StructField("inputOtherFiles", FileCount.schema("numFiles")),
    StructField("inputNumZCubes", LongType), StructField("mergedFiles", FileCount.schema("numFiles")),
    StructField("numOutputZCubes", LongType),
    StructField("clusteringColumns", ArrayType(StringType)), StructField("numBytesConsidered", LongType),
    StructField("numFilesLeftAlone", LongType), StructField("numBytesLeftAlone", LongType),
    StructField("rangeReadFractionBefore", MapType(StringType, DoubleType)),
    StructField("rangeReadFractionAfter", MapType(StringType, DoubleType))))
}

/** Deletion vectors an OPTIMIZE dropped by rewriting their files, and the deleted rows they held. */
final case class DeletionVectorStats(numDeletionVectorsRemoved: Long, numDeletionVectorRowsRemoved: Long) {
  def toRow: Row = Row(numDeletionVectorsRemoved, numDeletionVectorRowsRemoved)
}

/**
 * The result of one OPTIMIZE: returned as a row in Delta Lake's metrics struct (its fields, in its
 * order; those about features Silt does not have, such as auto compaction, are zero or null) and
 * recorded in the commit's operationMetrics. Silt runs every bin in one batch.
 */
final case class OptimizeMetrics(
    numFilesAdded: Long,
    numFilesRemoved: Long,
    filesAdded: FileSizeStats,
    filesRemoved: FileSizeStats,
    partitionsOptimized: Long,
    numBins: Long,
    totalConsideredFiles: Long,
    totalFilesSkipped: Long,
    zOrderStats: Option[ZOrderStats],
    clusteringStats: Option[ClusteringStats],
    deletionVectorStats: DeletionVectorStats,
    startTimeMs: Long,
    endTimeMs: Long,
    totalClusterParallelism: Long,
    numTableColumns: Long,
    numTableColumnsWithStats: Long,
    addedFileSizePercentiles: Map[Int, Long]) {

  def numBatches: Long = if (numBins > 0) 1 else 0

  def toRow: Row = Row(numFilesAdded, numFilesRemoved, filesAdded.toRow, filesRemoved.toRow, partitionsOptimized,
    zOrderStats.map(_.toRow).orNull, clusteringStats.map(_.toRow).orNull, numBins, numBatches,
    totalConsideredFiles, totalFilesSkipped, false, 0L, 0L, startTimeMs, endTimeMs, totalClusterParallelism,
    numBins, null, deletionVectorStats.toRow, numTableColumns, numTableColumnsWithStats)

  def operationMetrics: Map[String, Long] = Map(
    "numAddedFiles" -> numFilesAdded,
    "numRemovedFiles" -> numFilesRemoved,
    "numAddedBytes" -> filesAdded.totalSize,
    "numRemovedBytes" -> filesRemoved.totalSize,
    "minFileSize" -> filesAdded.min,
    "maxFileSize" -> filesAdded.max,
    "partitionsOptimized" -> partitionsOptimized,
    "numBatches" -> numBins,
    "totalConsideredFiles" -> totalConsideredFiles,
    "totalFilesSkipped" -> totalFilesSkipped,
    "numDeletionVectorsRemoved" -> deletionVectorStats.numDeletionVectorsRemoved,
    "numDeletedRowsPurged" -> deletionVectorStats.numDeletionVectorRowsRemoved) ++
    addedFileSizePercentiles.map { case (p, size) => s"p${p}FileSize" -> size } ++
    zOrderStats.map(z => Map("numOutputCubes" -> z.numOutputCubes)).getOrElse(Map.empty) ++
    clusteringStats.map(_.operationMetrics).getOrElse(Map.empty)
}

object OptimizeMetrics {
  /** The 25th, 50th and 75th percentile of sizes (nearest rank), as Delta Lake records them; none of no sizes. */
  def percentiles(sizes: Seq[Long]): Map[Int, Long] = if (sizes.isEmpty) Map.empty else {
    val sorted = sizes.sorted.toIndexedSeq
    Seq(25, 50, 75).map(p => p -> sorted(math.max(0, (sorted.size * p + 99) / 100 - 1))).toMap
  }

  val schema: StructType = StructType(Seq(
    StructField("numFilesAdded", LongType),
    StructField("numFilesRemoved", LongType),
    StructField("filesAdded", FileSizeStats.schema),
    StructField("filesRemoved", FileSizeStats.schema),
    StructField("partitionsOptimized", LongType),
    StructField("zOrderStats", ZOrderStats.schema),
    StructField("clusteringStats", ClusteringStats.schema),
    StructField("numBins", LongType),
    StructField("numBatches", LongType),
    StructField("totalConsideredFiles", LongType),
    StructField("totalFilesSkipped", LongType),
    StructField("preserveInsertionOrder", BooleanType),
    StructField("numFilesSkippedToReduceWriteAmplification", LongType),
    StructField("numBytesSkippedToReduceWriteAmplification", LongType),
    StructField("startTimeMs", LongType),
    StructField("endTimeMs", LongType),
    StructField("totalClusterParallelism", LongType),
    StructField("totalScheduledTasks", LongType),
    StructField("autoCompactParallelismStats", StructType(Seq("maxClusterActiveParallelism",
      "minClusterActiveParallelism", "maxSessionActiveParallelism", "minSessionActiveParallelism")
      .map(StructField(_, LongType)))),
    StructField("deletionVectorStats", StructType(Seq(StructField("numDeletionVectorsRemoved", LongType),
      StructField("numDeletionVectorRowsRemoved", LongType)))),
    StructField("numTableColumns", LongType),
    StructField("numTableColumnsWithStats", LongType)))

  /** The command's output: the table path and its metrics, as Delta's OPTIMIZE returns them. */
  val outputSchema: StructType = StructType(Seq(
    StructField("path", StringType), StructField("metrics", schema)))
}
