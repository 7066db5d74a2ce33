package io.silt.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.catalyst.util.SQLOrderingUtil
import org.apache.spark.sql.types._

/**
 * Range bounds of a column, computed from a sample: value v falls in range i when
 * bounds(i - 1) < v <= bounds(i); nulls fall in range 0. Mirrors Spark's RangePartitioner
 * lookup, with bounds that can be computed once and shared by several columns' lookups.
 */
final case class RangeBounds(dataType: DataType, bounds: Array[Any]) {
  @transient private lazy val ordering = PhysicalDataType.ordering(dataType)

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

/**
 * Looks up the range of the child's value in sampled [[RangeBounds]]; what RangePartitionId
 * becomes. Numeric, date and timestamp columns get generated code: a binary search over a
 * primitive array, with no boxing per row.
 */
final case class PartitionerExpr(child: Expression, bounds: RangeBounds) extends UnaryExpression {
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false
  override def prettyName: String = "range_partition_id"

  override def eval(input: InternalRow): Any = bounds.rangeOf(child.eval(input))

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val c = child.genCode(ctx)
    val helper = PartitionerExpr.getClass.getName.stripSuffix("$")
    val lookup = child.dataType match {
      case ByteType | ShortType | IntegerType | DateType | LongType | TimestampType | TimestampNTZType =>
        val arr = ctx.addReferenceObj("bounds", bounds.bounds.map(b => b.asInstanceOf[Number].longValue()), "long[]")
        s"$helper.searchLong($arr, (long) ${c.value})"
      case FloatType | DoubleType =>
        val arr = ctx.addReferenceObj("bounds", bounds.bounds.map(b => b.asInstanceOf[Number].doubleValue()), "double[]")
        s"$helper.searchDouble($arr, (double) ${c.value})"
      case _ =>
        val ref = ctx.addReferenceObj("rangeBounds", bounds)
        s"$ref.rangeOf(${c.value})"
    }
    ev.copy(code = code"""
      |${c.code}
      |int ${ev.value} = ${c.isNull} ? 0 : $lookup;
      |boolean ${ev.isNull} = false;""".stripMargin)
  }

  override protected def withNewChildInternal(newChild: Expression): PartitionerExpr = copy(child = newChild)
}

object PartitionerExpr {
  /** The number of bounds strictly below `v`: its range (the same rule as RangeBounds.rangeOf). */
  def searchLong(bounds: Array[Long], v: Long): Int = {
    var lo = 0
    var hi = bounds.length
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (bounds(mid) < v) lo = mid + 1 else hi = mid }
    lo
  }

  def searchDouble(bounds: Array[Double], v: Double): Int = {
    var lo = 0
    var hi = bounds.length
    // Spark's order of doubles: NaN above every number, -0.0 equal to 0.0.
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (SQLOrderingUtil.compareDoubles(bounds(mid), v) < 0) lo = mid + 1 else hi = mid }
    lo
  }
}
