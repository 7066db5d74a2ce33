package io.silt.expressions

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Literal}
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection
import org.apache.spark.sql.types.IntegerType
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class InterleaveBitsSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def hex(b: Array[Byte]) = b.map("%02x".format(_)).mkString

  test("known vectors") {
    assert(hex(InterleaveBits(Seq(Literal(97), Literal(214))).eval().asInstanceOf[Array[Byte]]) == "0000000000007916")
    assert(hex(InterleaveBits(Seq(Literal(-1))).eval().asInstanceOf[Array[Byte]]) == "ffffffff")
    assert(hex(InterleaveBits(Seq(Literal(1), Literal(0), Literal(0))).eval().asInstanceOf[Array[Byte]]) ==
      "000000000000000000000004")
    assert(hex(InterleaveBits(Seq(Literal(null, IntegerType), Literal(3))).eval().asInstanceOf[Array[Byte]]) ==
      "0000000000000005")
  }

  test("de-interleaving gives the inputs back (every bit lands in one place)") {
    forAll(Gen.listOfN(3, Gen.choose(Int.MinValue, Int.MaxValue))) { values =>
      val bytes = InterleaveBits.interleave(values.toArray, 32)
      val back = Array.fill(3)(0)
      (0 until 96).foreach { pos =>
        val bit = (bytes(pos / 8) >>> (7 - pos % 8)) & 1
        back(pos % 3) |= bit << (31 - pos / 3)
      }
      assert(back.toSeq == values)
    }
  }

  test("the key orders points along the Z-curve: comparing keys compares the top differing bit") {
    forAll(Gen.choose(0, 1023), Gen.choose(0, 1023), Gen.choose(0, 1023)) { (x, y1, y2) =>
      val k1 = InterleaveBits.interleave(Array(x, y1), 10)
      val k2 = InterleaveBits.interleave(Array(x, y2), 10)
      val cmp = java.util.Arrays.compareUnsigned(k1, k2)
      assert(Integer.signum(cmp) == Integer.signum(Integer.compare(y1, y2)))
    }
  }

  test("generated code and interpreted evaluation agree") {
    val expr = InterleaveBits(Seq(BoundReference(0, IntegerType, nullable = true), BoundReference(1, IntegerType, nullable = true)))
    val projection = GenerateUnsafeProjection.generate(Seq(expr))
    forAll(Gen.option(Gen.choose(Int.MinValue, Int.MaxValue)), Gen.choose(Int.MinValue, Int.MaxValue)) { (a, b) =>
      val row = InternalRow(a.map(Int.box).orNull, b)
      assert(projection(row).getBinary(0).toSeq == expr.eval(row).asInstanceOf[Array[Byte]].toSeq)
    }
  }

  test("the long curve key holds the same bits as the byte key") {
    forAll(Gen.listOfN(3, Gen.choose(0, 1023))) { ids =>
      val asLong = InterleaveBits.interleaveToLong(ids.toArray, 10)
      val bytes = InterleaveBits.interleave(ids.toArray, 10) // 30 bits, left-aligned in 4 bytes
      val fromBytes = java.nio.ByteBuffer.wrap(bytes).getInt.toLong & 0xffffffffL
      assert(asLong == fromBytes >>> 2)
      val key = CurveKey(ids.map(i => Literal(i)), 10)
      assert(key.eval(null) == asLong)
      assert(GenerateUnsafeProjection.generate(Seq(key))(InternalRow.empty).getLong(0) == asLong)
    }
  }
}
