package io.silt.expressions

import scala.util.Random

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Alias, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.DataType

/** A weighted random sample of rows: each sampled row stands for `weight` input rows. */
final case class WeightedSample(rows: Array[InternalRow], weights: Array[Double]) {
  /** Bounds of column `i` splitting the sample's weight into `numRanges` about equal parts. */
  def rangeBounds(i: Int, dataType: DataType, numRanges: Int): RangeBounds = {
    val ordering = PhysicalDataType.ordering(dataType)
    val pairs = rows.indices.iterator.map(r => (rows(r).get(i, dataType), weights(r))).filter(_._1 != null).toArray
      .sortWith((a, b) => ordering.lt(a._1, b._1))
    if (pairs.isEmpty || numRanges <= 1) return RangeBounds(dataType, Array.empty)
    val total = pairs.iterator.map(_._2).sum
    val step = total / numRanges
    val bounds = scala.collection.mutable.ArrayBuffer.empty[Any]
    var cumulative = 0.0
    var target = step
    pairs.foreach { case (v, w) =>
      cumulative += w
      if (cumulative >= target && bounds.size < numRanges - 1) {
        if (bounds.isEmpty || ordering.gt(v, bounds.last)) bounds += v
        while (target <= cumulative) target += step
      }
    }
    RangeBounds(dataType, bounds.toArray)
  }
}

/**
 * Samples the values of expressions over a plan in one Spark job, with a reservoir per input
 * partition, as Spark's RangePartitioner does, but for several expressions at once.
 */
object RowSampler {

  def sample(spark: SparkSession, plan: LogicalPlan, exprs: Seq[Expression], sampleSize: Int): WeightedSample = {
    val projected = Project(exprs.zipWithIndex.map { case (e, i) => Alias(e, s"_sample_$i")() }, plan)
    val rdd = spark.sessionState.executePlan(projected).toRdd
    val perPartition = math.max(1, math.ceil(3.0 * sampleSize / math.max(1, rdd.getNumPartitions)).toInt)
    val seed = Random.nextLong()
    val sketches = rdd.mapPartitionsWithIndex { (idx, it) =>
      val rnd = new Random(seed + idx)
      val reservoir = new Array[InternalRow](perPartition)
      var n = 0L
      it.foreach { row =>
        if (n < perPartition) reservoir(n.toInt) = row.copy()
        else {
          val j = (rnd.nextDouble() * (n + 1)).toLong
          if (j < perPartition) reservoir(j.toInt) = row.copy()
        }
        n += 1
      }
      val kept = math.min(n, perPartition.toLong).toInt
      Iterator.single((n, reservoir.take(kept)))
    }.collect()
    val rows = sketches.flatMap(_._2)
    val weights = sketches.flatMap { case (n, kept) => Array.fill(kept.length)(n.toDouble / kept.length) }
    WeightedSample(rows, weights)
  }
}
