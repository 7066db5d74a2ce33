package io.silt.optimize

import io.silt.expressions.{Curve, CurveKey, InterleaveBits, PartitionerExpr, RowSampler}
import io.silt.spark.Identifiers
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression, Murmur3Hash}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.functions.col

/** What clustering produced: the rows ready to write, and how many files and curve blocks. */
final case class ClusteredData(data: DataFrame, numFiles: Int, numCubes: Int)

/**
 * Clusters rows along a space-filling curve (Z-order, or Hilbert order for a clustered table): each column becomes a range id (its rank among
 * `numRanges` equal-count ranges, from one shared sample), the ids' bits are interleaved into
 * a key, and rows go to files planned by [[CurveLayout]] as blocks of the curve, sorted by the
 * key inside each file.
 *
 * Why not range-partition on the key (the reference algorithm)? Sampled range boundaries fall
 * anywhere on the curve, so most files span a jump of the curve and their min/max boxes cover
 * far more than their rows. Aligning files with quadtree blocks (and using a power-of-two
 * number of ranges, so that blocks are squares in rank space) gives near-grid boxes.
 */
object ZOrderClustering {
  /** Finest cells counted when planning files: 2^16 at most. */
  private val MaxPrefixBits = 16

  def cluster(spark: SparkSession, data: DataFrame, columns: Seq[String], numFiles: Int,
      numRanges: Int, addNoise: Boolean, sortColumns: Seq[String], curve: Curve = Curve.ZOrder): ClusteredData = {
    val analyzed = data.queryExecution.analyzed
    val exprs: Seq[Expression] = columns.map { c =>
      analyzed.resolveQuoted(c, spark.sessionState.analyzer.resolver) match {
        case Some(Alias(e, _)) => e
        case Some(e) => e
        case None => throw new IllegalArgumentException(s"cannot resolve column $c")
      }
    }
    val wanted = math.max(1, 32 - Integer.numberOfLeadingZeros(math.max(1, numRanges - 1)))
    // A Hilbert key is a long: with many columns each gets fewer ranges.
    val bitsPerColumn = if (curve == Curve.Hilbert) math.max(1, math.min(wanted, 63 / columns.size)) else wanted
    val ranges = 1 << bitsPerColumn
    val sampleSize = math.min(1000000, math.max(20 * ranges, 2000 * numFiles))
    val sample = RowSampler.sample(spark, analyzed, exprs, sampleSize)
    val bounds = exprs.zipWithIndex.map { case (e, i) => sample.rangeBounds(i, e.dataType, ranges) }

    val dims = columns.size
    val levels = math.max(1, math.min(bitsPerColumn, MaxPrefixBits / dims))
    // A cell's place on the curve at `levels` bits per column is the top of its rows' keys.
    val weights = sample.rows.indices.groupBy { r =>
      val ids = bounds.indices.map(i => bounds(i).rangeOf(sample.rows(r).get(i, exprs(i).dataType)) >>> (bitsPerColumn - levels))
      curve.index(ids.toArray, levels)
    }.map { case (cell, rows) => cell -> rows.map(sample.weights).sum }
    val plan = CurveLayout.plan(weights, dims, levels, numFiles, splitHeavyCells = addNoise)

    val rangeIds = exprs.zip(bounds).map { case (e, b) => PartitionerExpr(e, b) }
    // A long key (sorted by radix) when it fits; the bytes of interleave_bits otherwise.
    val longKey = dims * bitsPerColumn <= 63
    val key = if (longKey) CurveKey(rangeIds, bitsPerColumn, curve) else InterleaveBits(rangeIds)
    val keyCol = "__silt_zorder_key"
    val withKey = data.withColumn(keyCol, SparkInternals.column(key))
    // The file id reads the computed key column, so the key is computed once per row.
    val keyAttr = withKey.queryExecution.analyzed.output.last
    val noise = Murmur3Hash(analyzed.output, 17)
    val fileId = CurveFileId(keyAttr, noise, plan, bitOffset = if (longKey) 0 else (32 - bitsPerColumn) * dims,
      prefixBits = dims * levels, partitionKeys = CurveFileId.hashPreimages(plan.numFiles), keyBits = dims * bitsPerColumn)
    val original = data.columns.map(c => Identifiers.column(c))
    val clustered = withKey
      .repartition(plan.numFiles, SparkInternals.column(fileId))
      .sortWithinPartitions((sortColumns.map(c => Identifiers.column(c)) :+ col(keyCol)): _*)
      .select(original.toIndexedSeq: _*)
    ClusteredData(clustered, plan.numFiles, plan.groups.size)
  }

}
