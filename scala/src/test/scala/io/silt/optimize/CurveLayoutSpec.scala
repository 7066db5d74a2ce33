package io.silt.optimize

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class CurveLayoutSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def uniform(dims: Int, levels: Int): Map[Long, Double] =
    (0L until (1L << (dims * levels))).map(_ -> 1.0).toMap

  test("uniform data and a power-of-four file count give exactly the quadtree grid") {
    val plan = CurveLayout.plan(uniform(2, 6), dims = 2, levels = 6, numFiles = 64, splitHeavyCells = true)
    assert(plan.numFiles == 64)
    // every file is one aligned 8x8 block: 64 finest cells of 4096
    assert(plan.groups.forall(g => g.end - g.start == 64 && g.start % 64 == 0))
  }

  test("a heavy single cell is spread over several files, or kept whole without noise") {
    val weights = Map(0L -> 1000.0, 5L -> 10.0, 9L -> 10.0)
    val split = CurveLayout.plan(weights, 2, 2, numFiles = 10, splitHeavyCells = true)
    assert(split.groups.head.files == 10)
    val whole = CurveLayout.plan(weights, 2, 2, numFiles = 10, splitHeavyCells = false)
    assert(whole.groups.head.files == 1)
  }

  test("every prefix maps to a file, files are in curve order, and the plan stays near the asked count") {
    val weightsGen = for {
      n <- Gen.choose(1, 200)
      cells <- Gen.listOfN(n, Gen.zip(Gen.choose(0L, 255L), Gen.choose(0.1, 50.0)))
    } yield cells.toMap
    forAll(weightsGen, Gen.choose(1, 40)) { (weights, files) =>
      val plan = CurveLayout.plan(weights, 2, 4, files, splitHeavyCells = true)
      assert(plan.groups.map(_.start) == plan.groups.map(_.start).sorted)
      assert(plan.groups.sliding(2).forall { case Seq(a, b) => a.end <= b.start; case _ => true })
      (0L until 256L).foreach { p =>
        val f = plan.fileOf(p, noise = p.toInt * 7)
        assert(f >= 0 && f < plan.numFiles)
      }
      assert(plan.numFiles <= 4 * files + 4)
      assert(math.abs(plan.groups.map(_.weight).sum - weights.values.sum) < 1e-6)
    }
  }

  test("hash preimages land each key in its own Spark hash partition") {
    val n = 97
    val keys = CurveFileId.hashPreimages(n)
    val parts = keys.map(k => Math.floorMod(org.apache.spark.unsafe.hash.Murmur3_x86_32.hashInt(k, 42), n))
    assert(parts.toSeq == (0 until n))
  }
}
