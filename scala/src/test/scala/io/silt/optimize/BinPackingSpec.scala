package io.silt.optimize

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class BinPackingSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  test("small files fill bins up to the maximum, smallest first") {
    val bins = BinPacking.pack(Seq(5L, 1L, 3L, 4L, 2L), 6L)(identity)
    assert(bins == Seq(Seq(1L, 2L, 3L), Seq(4L), Seq(5L)))
  }

  test("a file larger than a bin gets its own bin") {
    assert(BinPacking.pack(Seq(10L, 1L), 4L)(identity) == Seq(Seq(1L), Seq(10L)))
  }

  test("every item lands in exactly one bin, and only single-item bins exceed the maximum") {
    forAll(Gen.listOf(Gen.choose(1L, 100L)), Gen.choose(1L, 300L)) { (sizes, max) =>
      val bins = BinPacking.pack(sizes, max)(identity)
      assert(bins.flatten.sorted == sizes.sorted)
      assert(bins.forall(b => b.nonEmpty && (b.sum <= max || b.size == 1)))
      // no two neighbouring bins could have been one
      bins.sliding(2).foreach {
        case Seq(a, b) => assert(a.sum + b.head > max)
        case _ =>
      }
    }
  }
}
