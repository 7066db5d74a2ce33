package io.silt.features

import io.silt.actions._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class RowTrackingSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def add(p: String, rows: Long, base: Option[Long] = None) =
    AddFile(p, Map.empty, 1, 1, dataChange = true, stats = Some(s"""{"numRecords":$rows}"""), baseRowId = base)

  private def adds(actions: Seq[Action]) = actions.collect { case a: AddFile => a }
  private def marks(actions: Seq[Action]) = RowTracking.highWaterMark(actions.collect { case d: DomainMetadata => d })

  test("commits in sequence give every row an id once, and the mark is the highest id given") {
    val commits = Gen.listOf(Gen.listOf(Gen.chooseNum(0L, 50L)))
    forAll(commits) { sizes =>
      var mark: Option[Long] = None
      val ranges = sizes.zipWithIndex.flatMap { case (files, v) =>
        val out = RowTracking.assign(files.zipWithIndex.map { case (n, i) => add(s"$v-$i", n) }, mark, v.toLong)
        marks(out).foreach(m => mark = Some(m))
        assert(adds(out).forall(_.defaultRowCommitVersion.contains(v.toLong)))
        adds(out).map(a => a.baseRowId.get until a.baseRowId.get + a.numPhysicalRecords.get)
      }
      val ids = ranges.flatten
      assert(ids.distinct.size == ids.size)
      assert(ids == ids.indices.map(_.toLong))
      assert(mark == ids.lastOption)
    }
  }

  test("files that have ids keep them, and a commit that gives none leaves the mark alone") {
    val out = RowTracking.assign(Seq(add("kept", 10, base = Some(3))), Some(20), 5)
    assert(adds(out).head.baseRowId.contains(3L) && adds(out).head.defaultRowCommitVersion.contains(5L))
    assert(marks(out).isEmpty)
  }

  test("ids go above a mark the commit carries itself (a clone's)") {
    val out = RowTracking.assign(Seq(RowTracking.markDomain(99), add("new", 2)), Some(10), 1)
    assert(adds(out).head.baseRowId.contains(100L) && marks(out).contains(101L))
    assert(out.count(_.isInstanceOf[DomainMetadata]) == 1)
  }

  test("a file without a row count cannot get ids") {
    intercept[io.silt.errors.InvalidTableOperationException](
      RowTracking.assign(Seq(AddFile("x", Map.empty, 1, 1, dataChange = true)), None, 0))
  }

  test("the backfill recommits the live files without ids that the commit does not replace") {
    val live = Seq(add("a", 1), add("b", 1, base = Some(0)), add("c", 1))
    val out = RowTracking.backfill(live, Seq(RemoveFile("c", Some(1), dataChange = true)))
    assert(out.map(_.path) == Seq("a") && !out.head.dataChange)
  }
}
