package io.silt.expressions

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class CurveSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def points(dims: Int, bits: Int): Seq[Array[Int]] =
    (0 until (1 << (dims * bits))).map(code => Array.tabulate(dims)(d => (code >>> (d * bits)) & ((1 << bits) - 1)))

  test("each curve visits every cell once") {
    for (curve <- Curve.all; dims <- 1 to 4; bits <- 1 to (12 / dims)) {
      val indexes = points(dims, bits).map(curve.index(_, bits))
      assert(indexes.sorted == (0L until (1L << (dims * bits))), s"$curve $dims x $bits")
    }
  }

  test("each next cell of the Hilbert curve touches the last") {
    for (dims <- 2 to 4; bits <- 1 to (12 / dims)) {
      val byIndex = points(dims, bits).map(p => HilbertCurve.index(p, bits) -> p).sortBy(_._1).map(_._2)
      byIndex.sliding(2).foreach { case Seq(a, b) =>
        assert(a.zip(b).map { case (x, y) => math.abs(x - y) }.sum == 1, s"$dims x $bits: ${a.toSeq} -> ${b.toSeq}")
      }
    }
  }

  test("the top bits of a position are the position of the cell at a coarser level") {
    val gen = for {
      dims <- Gen.choose(1, 4)
      bits <- Gen.choose(1, 63 / dims min 12)
      level <- Gen.choose(1, bits)
      values <- Gen.listOfN(dims, Gen.choose(0, (1 << bits) - 1))
    } yield (dims, bits, level, values.toArray)
    forAll(gen) { case (dims, bits, level, values) =>
      Curve.all.foreach { curve =>
        assert(curve.index(values.map(_ >>> (bits - level)), level) == curve.index(values, bits) >>> (dims * (bits - level)))
      }
    }
  }
}
