package io.silt.expressions

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionInfo}

/** The SQL functions Silt registers: interleave_bits and range_partition_id. */
object SiltFunctions {
  type Registration = (FunctionIdentifier, ExpressionInfo, Seq[Expression] => Expression)

  val interleaveBits: Registration = (
    FunctionIdentifier("interleave_bits"),
    new ExpressionInfo(classOf[InterleaveBits].getName, "interleave_bits"),
    (args: Seq[Expression]) => InterleaveBits(args))

  val rangePartitionId: Registration = (
    FunctionIdentifier("range_partition_id"),
    new ExpressionInfo(classOf[RangePartitionId].getName, "range_partition_id"),
    (args: Seq[Expression]) => RangePartitionId.fromArguments(args))
}
