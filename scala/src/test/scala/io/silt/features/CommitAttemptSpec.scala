package io.silt.features

import io.silt.actions._
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/** The features' parts of each commit attempt (`TableFeature.atAttempt`), run as the commit runs them: all, in order. */
class CommitAttemptSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val schema = """{"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}}]}"""
  private def metadata(props: (String, String)*) = Metadata("t", None, None, Format(), schema, Nil, props.toMap, None)
  private val protocol = Protocol(3, 7, Some(Set.empty), Some(Set(RowTrackingFeature.name, DomainMetadataFeature.name,
    InCommitTimestampFeature.name)))
  private val stamped = metadata(TableProperties.EnableInCommitTimestamps.key -> "true",
    TableProperties.EnableRowTracking.key -> "true")
  private def add(p: String, rows: Long) =
    AddFile(p, Map.empty, 1, 1, dataChange = true, stats = Some(s"""{"numRecords":$rows}"""))

  private def attempt(a: CommitAttempt) = TableFeatures.all.foldLeft(a)((a, f) => f.atAttempt(a))

  test("each attempt is stamped after the commit before it and gets ids above the mark the winners left") {
    val gen = for {
      version <- Gen.chooseNum(1L, 1000L)
      now <- Gen.chooseNum(0L, 2000L)
      before <- Gen.chooseNum(0L, 2000L)
      mark <- Gen.option(Gen.chooseNum(0L, 500L))
      rows <- Gen.listOf(Gen.chooseNum(1L, 20L))
    } yield (version, now, before, mark, rows)
    forAll(gen) { case (version, now, before, mark, rows) =>
      val domains = mark.map(m => RowTracking.Domain -> RowTracking.markDomain(m)).toMap
      val out = attempt(CommitAttempt(version, rows.zipWithIndex.map { case (n, i) => add(s"f$i", n) }, protocol,
        stamped, Some(stamped), domains, now, () => before))
      val stamp = out.inCommitTimestamp.get
      assert(stamp > before && stamp >= now && (stamp == now || stamp == before + 1))
      val ids = out.actions.collect { case a: AddFile => a.baseRowId.get until a.baseRowId.get + a.numPhysicalRecords.get }.flatten
      assert(ids == (mark.getOrElse(-1L) + 1 to mark.getOrElse(-1L) + rows.sum))
      assert(out.actions.collect { case a: AddFile => a.defaultRowCommitVersion }.forall(_.contains(version)))
    }
  }

  test("the first commit's stamp is the clock's, and the previous commit is not read") {
    val out = attempt(CommitAttempt(0, Seq(stamped), protocol, stamped, None, Map.empty, 42, () => fail("read")))
    assert(out.inCommitTimestamp.contains(42L))
  }

  test("a commit turning in-commit timestamps on records the version and stamp it begins with") {
    val out = attempt(CommitAttempt(7, Seq(stamped), protocol, stamped, Some(metadata()), Map.empty, 5, () => 100))
    val conf = out.actions.collect { case m: Metadata => m.configuration }.head
    assert(conf(TableProperties.InCommitTimestampEnablementVersion.key) == "7")
    assert(conf(TableProperties.InCommitTimestampEnablementTimestamp.key) == "101")
    // once on, later commits record nothing more
    val later = attempt(CommitAttempt(8, Seq(stamped), protocol, stamped, Some(stamped), Map.empty, 5, () => 100))
    assert(later.actions == Seq(stamped))
  }

  test("a table with neither feature's property is written as it was given") {
    val plain = metadata()
    val a = CommitAttempt(3, Seq(add("f", 3)), Protocol(1, 2), plain, Some(plain), Map.empty, 5, () => fail("read"))
    assert(attempt(a) == a)
  }
}
