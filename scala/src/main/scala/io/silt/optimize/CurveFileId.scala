package io.silt.optimize

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BinaryExpression, Expression}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, IntegerType}
import org.apache.spark.unsafe.hash.Murmur3_x86_32

/**
 * The shuffle key that sends a row to its planned output file: reads the curve prefix out of
 * the row's Z-order key, finds its file in the [[CurveLayout.Plan]], and returns an int whose
 * Spark hash partition is exactly that file's index, so that a plain `repartition(n, key)`
 * keeps every planned file in one task (and no task gets two files).
 *
 * @param key         the row's curve key: a long (a [[io.silt.expressions.CurveKey]] of `keyBits`
 *                    bits) or the bytes of interleave_bits
 * @param noise       spreads a heavy cell over its files; evaluated only for such cells
 * @param bitOffset   where the prefix starts in the key (the leading bits are always zero)
 * @param prefixBits  how many bits the finest-level prefix has
 */
final case class CurveFileId(key: Expression, noise: Expression, plan: CurveLayout.Plan,
    bitOffset: Int, prefixBits: Int, partitionKeys: Array[Int], keyBits: Int = 0) extends BinaryExpression with CodegenFallback {

  override def left: Expression = key
  override def right: Expression = noise
  override def dataType: DataType = IntegerType
  override def nullable: Boolean = false
  override def prettyName: String = "curve_file_id"

  override def eval(input: InternalRow): Any = {
    val prefix = key.eval(input) match {
      case long: java.lang.Long => long.longValue() >>> (keyBits - bitOffset - prefixBits)
      case bytes: Array[Byte] =>
        var p = 0L
        var i = 0
        while (i < prefixBits) {
          val pos = bitOffset + i
          p = (p << 1) | ((bytes(pos >> 3) >>> (7 - (pos & 7))) & 1)
          i += 1
        }
        p
    }
    partitionKeys(plan.fileOf(prefix, {
      val n = noise.eval(input)
      if (n == null) 0 else n.asInstanceOf[Int]
    }))
  }

  override protected def withNewChildrenInternal(newLeft: Expression, newRight: Expression): CurveFileId =
    copy(key = newLeft, noise = newRight)
}

object CurveFileId {
  /** Spark's hash partitioning seed (HashPartitioning uses Murmur3Hash with seed 42). */
  private val Seed = 42

  /** For each partition index p of n, an int whose Spark hash partition is p. */
  def hashPreimages(n: Int): Array[Int] = {
    val out = Array.fill(n)(-1)
    var remaining = n
    var k = 0
    while (remaining > 0) {
      val p = Math.floorMod(Murmur3_x86_32.hashInt(k, Seed), n)
      if (out(p) < 0) { out(p) = k; remaining -= 1 }
      k += 1
    }
    out
  }
}
