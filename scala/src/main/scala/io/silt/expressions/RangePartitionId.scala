package io.silt.expressions

import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription, Literal, UnaryExpression, Unevaluable}
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * A placeholder for "the index of the range, among `numRanges` ranges of equal row counts, that
 * holds the child's value". It cannot be evaluated: the `RangePartitionIdRewrite` optimizer rule
 * samples the child and replaces it with a [[PartitionerExpr]].
 */
@ExpressionDescription(
  usage = "_FUNC_(expr, numRanges) - The range (0 to numRanges - 1) of expr's value among numRanges equal-count ranges.")
final case class RangePartitionId(child: Expression, numRanges: Int) extends UnaryExpression with Unevaluable {
  require(numRanges > 0, s"range_partition_id needs a positive number of ranges, not $numRanges")

  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false
  override def prettyName: String = "range_partition_id"

  override protected def withNewChildInternal(newChild: Expression): RangePartitionId = copy(child = newChild)
}

object RangePartitionId {
  /** The SQL function: range_partition_id(expr, numRanges) with a literal number of ranges. */
  def fromArguments(args: Seq[Expression]): RangePartitionId = args match {
    case Seq(child, Literal(n: Int, IntegerType)) => RangePartitionId(child, n)
    case _ => throw new IllegalArgumentException("range_partition_id takes an expression and a literal int number of ranges")
  }
}
