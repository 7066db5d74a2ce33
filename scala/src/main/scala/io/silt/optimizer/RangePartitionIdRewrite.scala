package io.silt.optimizer

import io.silt.expressions.{PartitionerExpr, RangePartitionId, RowSampler}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, IsNotNull}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Replaces every [[RangePartitionId]] in a plan with a [[PartitionerExpr]] whose bounds come
 * from sampling the expression's non-null values over the input it reads. Works on any node,
 * not only unary ones: the input is the child whose output the expression references.
 */
final class RangePartitionIdRewrite(spark: SparkSession) extends Rule[LogicalPlan] {

  /** Rows sampled per requested range, as Spark's RangePartitioner does, but never fewer than MinSample. */
  private val SamplePerRange = 20
  private val MinSample = 100000
  private val MaxSample = 1000000

  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case node if node.expressions.exists(_.exists(_.isInstanceOf[RangePartitionId])) =>
      node.transformExpressionsUp { case r: RangePartitionId => rewrite(node, r) }
  }

  private def rewrite(node: LogicalPlan, r: RangePartitionId): Expression = {
    val input = node.children.find(c => r.child.references.subsetOf(c.outputSet)).getOrElse(
      throw new IllegalArgumentException(s"range_partition_id(${r.child.sql}) must reference the columns of one input"))
    val sampleSize = math.min(MaxSample, math.max(MinSample, SamplePerRange.toLong * r.numRanges)).toInt
    val sample = RowSampler.sample(spark, Filter(IsNotNull(r.child), input), Seq(r.child), sampleSize)
    PartitionerExpr(r.child, sample.rangeBounds(0, r.child.dataType, r.numRanges))
  }
}
