package io.silt.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * Range bounds of a column, computed from a sample: value v falls in range i when
 * bounds(i - 1) < v <= bounds(i); nulls fall in range 0. Mirrors Spark's RangePartitioner
 * lookup, with bounds that can be computed once and shared by several columns' lookups.
 */
final case class RangeBounds(dataType: DataType, bounds: Array[Any]) {
  @transient private lazy val ordering = PhysicalDataType.ordering(dataType)

  def numRanges: Int = bounds.length + 1

  def rangeOf(value: Any): Int = {
    if (value == null) return 0
    var lo = 0
    var hi = bounds.length
    while (lo < hi) { // first bound >= value
      val mid = (lo + hi) >>> 1
      if (ordering.lt(bounds(mid), value)) lo = mid + 1 else hi = mid
    }
    lo
  }
}

/** Looks up the range of the child's value in sampled [[RangeBounds]]; what RangePartitionId becomes. */
final case class PartitionerExpr(child: Expression, bounds: RangeBounds) extends UnaryExpression with CodegenFallback {
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false
  override def prettyName: String = "range_partition_id"

  override def eval(input: InternalRow): Any = bounds.rangeOf(child.eval(input))

  override protected def withNewChildInternal(newChild: Expression): PartitionerExpr = copy(child = newChild)
}
