package io.silt.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.analysis.TypeCheckResult
import org.apache.spark.sql.catalyst.expressions.{Expression, ExpressionDescription}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, CodeGenerator, ExprCode}
import org.apache.spark.sql.catalyst.expressions.codegen.Block._
import org.apache.spark.sql.types.{BinaryType, DataType, IntegerType}

/**
 * Interleaves the bits of int values into one binary key, most significant bits first: bit 31
 * of every child in order, then bit 30, … The byte order of the result is the order of the
 * Z-curve through the children's values. A null child counts as 0.
 */
@ExpressionDescription(
  usage = "_FUNC_(i1, i2, ...) - Interleaves the bits of the int arguments into a binary Z-order key.",
  examples = "> SELECT hex(_FUNC_(97, 214));\n 0000000000007916")
final case class InterleaveBits(children: Seq[Expression]) extends Expression {

  override def nullable: Boolean = false
  override def dataType: DataType = BinaryType
  override def prettyName: String = "interleave_bits"

  override def checkInputDataTypes(): TypeCheckResult =
    if (children.isEmpty) TypeCheckResult.TypeCheckFailure("interleave_bits needs at least one int argument")
    else children.zipWithIndex.collectFirst {
      case (c, i) if c.dataType != IntegerType =>
        TypeCheckResult.TypeCheckFailure(s"argument ${i + 1} of interleave_bits is ${c.dataType.simpleString}, not int")
    }.getOrElse(TypeCheckResult.TypeCheckSuccess)

  override def eval(input: InternalRow): Any = {
    val values = new Array[Int](children.length)
    var i = 0
    while (i < values.length) {
      val v = children(i).eval(input)
      values(i) = if (v == null) 0 else v.asInstanceOf[Int]
      i += 1
    }
    InterleaveBits.interleave(values, 32)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    InterleaveBits.genCode(ctx, ev, children, s"${CodeGenerator.javaType(dataType)} ${ev.value}", "interleave", 32)

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): InterleaveBits =
    copy(children = newChildren)
}

object InterleaveBits {
  /** Generated code: the children's ints (null as 0) into an array, then `method(array, bits)`. */
  private[expressions] def genCode(ctx: CodegenContext, ev: ExprCode, children: Seq[Expression],
      declaration: String, method: String, bits: Int,
      owner: String = InterleaveBits.getClass.getName.stripSuffix("$")): ExprCode = {
    val values = ctx.freshName("values")
    val evals = children.zipWithIndex.map { case (c, i) =>
      val e = c.genCode(ctx)
      s"""${e.code}
         |$values[$i] = ${e.isNull} ? 0 : ${e.value};""".stripMargin
    }
    val code = ctx.splitExpressionsWithCurrentInputs(evals)
    ev.copy(code = code"""
      |int[] $values = new int[${children.length}];
      |$code
      |$declaration = $owner.$method($values, $bits);
      |boolean ${ev.isNull} = false;""".stripMargin)
  }

  /**
   * The same interleaving of the low `bits` bits of each value as a long (values.length * bits
   * <= 63): a key Spark sorts by radix instead of by comparing byte arrays.
   */
  def interleaveToLong(values: Array[Int], bits: Int): Long = {
    var out = 0L
    var b = bits - 1
    while (b >= 0) {
      var i = 0
      while (i < values.length) {
        out = (out << 1) | ((values(i) >>> b) & 1)
        i += 1
      }
      b -= 1
    }
    out
  }

  /**
   * The low `bits` bits of each value, interleaved from the most significant down, packed
   * big-endian into ceil(values.length * bits / 8) bytes (zero-padded at the end).
   */
  def interleave(values: Array[Int], bits: Int): Array[Byte] = {
    val n = values.length
    val out = new Array[Byte]((n * bits + 7) / 8)
    var pos = 0
    var b = bits - 1
    while (b >= 0) {
      var i = 0
      while (i < n) {
        if (((values(i) >>> b) & 1) != 0) out(pos >> 3) = (out(pos >> 3) | (0x80 >>> (pos & 7))).toByte
        pos += 1
        i += 1
      }
      b -= 1
    }
    out
  }
}

/**
 * The curve key of small range ids as a long: their position on `curve` (Z-order: the low
 * `bitsPerChild` bits of each child interleaved most significant first, the order of
 * [[InterleaveBits]] on those bits; or Hilbert order).
 */
final case class CurveKey(children: Seq[Expression], bitsPerChild: Int, curve: Curve = Curve.ZOrder) extends Expression {
  require(children.nonEmpty && children.length * bitsPerChild <= 63, "a curve key holds at most 63 bits")

  override def nullable: Boolean = false
  override def dataType: DataType = org.apache.spark.sql.types.LongType
  override def prettyName: String = "curve_key"

  override def eval(input: InternalRow): Any = {
    val values = children.map(c => Option(c.eval(input)).map(_.asInstanceOf[Int]).getOrElse(0)).toArray
    curve.index(values, bitsPerChild)
  }

  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode = {
    val (owner, method) = curve.method
    InterleaveBits.genCode(ctx, ev, children, s"long ${ev.value}", method, bitsPerChild, owner)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): CurveKey =
    copy(children = newChildren)
}
