package io.silt.log

import io.silt.actions._

import io.silt.dv.{DeletionVectorDescriptor, DvStorage}
import org.apache.hadoop.fs.Path
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class LogReplaySpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val root = new Path("file:/tmp/table")
  private val meta = Metadata("id", None, None, Format(), """{"type":"struct","fields":[]}""", Nil, Map.empty, None)
  private def add(p: String, dv: Option[DeletionVectorDescriptor] = None) = AddFile(p, Map.empty, 1, 1, dataChange = true, deletionVector = dv)
  private def remove(p: String, dv: Option[DeletionVectorDescriptor] = None) = RemoveFile(p, Some(1), dataChange = true, deletionVector = dv)
  private val dvFile = java.util.UUID.fromString("5a1e2f1c-0000-4000-8000-00000000a11e")
  private val dv1 = Some(DeletionVectorDescriptor.onDisk(dvFile, "", 1, 10, 1, None))
  private val dv2 = Some(DeletionVectorDescriptor.onDisk(dvFile, "", 30, 10, 2, None))

  private def replay(commits: Seq[Action]*): Snapshot = {
    val r = new LogReplay(root)
    commits.foreach(r.append)
    r.toSnapshot(commits.size - 1, 0)
  }

  test("a remove with a different DV does not remove the file") {
    val s = replay(Seq(Protocol(1, 2), meta, add("f", dv1)), Seq(remove("f", dv2)))
    assert(s.files.map(_.deletionVector) == Seq(dv1))
  }

  test("swapping a DV removes (path, old DV) and adds (path, new DV)") {
    val s = replay(Seq(Protocol(1, 2), meta, add("f", None)), Seq(remove("f", None), add("f", dv1)), Seq(remove("f", dv1), add("f", dv2)))
    assert(s.files.map(_.deletionVector) == Seq(dv2))
    assert(s.tombstones.size == 2)
  }

  test("a malformed DV descriptor is a corrupt log naming the data file, not a bare decoding error") {
    val bad = Some(DeletionVectorDescriptor(DvStorage.Relative, "a", Some(1), 10, 1))
    val e = intercept[io.silt.errors.CorruptLogException](replay(Seq(Protocol(1, 2), meta, add("f", bad))))
    assert(e.getMessage.contains("the add action for f") && e.getMessage.contains("u:a@1"))
  }

  test("paths match after URI decoding and resolution against the table root") {
    val s = replay(Seq(Protocol(1, 2), meta, add("special%20p@%23h")), Seq(remove("file:/tmp/table/special%20p@%23h")))
    assert(s.files.isEmpty)
  }

  test("the latest protocol and metadata win; a re-added file is live again") {
    val m2 = meta.copy(id = "other")
    val s = replay(Seq(Protocol(1, 2), meta, add("f")), Seq(remove("f")), Seq(Protocol(1, 3), m2, add("f")))
    assert(s.protocol == Protocol(1, 3) && s.metadata == m2 && s.files.size == 1 && s.tombstones.isEmpty)
  }

  test("relative paths encode reserved characters and decode back") {
    val rel = "p=a b%3A/part-0.parquet"
    val encoded = TablePaths.relativeEncoded(rel)
    assert(encoded == "p=a%20b%253A/part-0.parquet")
    assert(TablePaths.absolute(root, encoded) == new Path(root, rel))
  }

  test("a plain relative path's key, joined as a string, is the key full URI resolution gives") {
    val chars = Gen.frequency(20 -> Gen.oneOf("abcXYZ019-_.=/".toSeq), 1 -> Gen.oneOf("%: @#+".toSeq))
    val paths = Gen.listOfN(12, chars).map(_.mkString)
    forAll(paths, minSuccessful(3000)) { p =>
      val slow = scala.util.Try(TablePaths.absolute(root, p).toUri.toString).toOption
      if (TablePaths.isPlainRelative(p)) assert(slow.contains(TablePaths.canonical(root, p)), p)
    }
    assert(TablePaths.isPlainRelative("day=1/part-00000-a1.c000.snappy.parquet"))
    Seq("../x", "a/./b", "a//b", "/abs", "a/", "s3:x", "a%20b", "a b", "").foreach(p => assert(!TablePaths.isPlainRelative(p), p))
  }

  test("a run of commits replaced by its reconciled actions replays to the same state") {
    val dvs = Seq(None, dv1, dv2)
    val action: Gen[Action] = Gen.frequency(
      6 -> Gen.zip(Gen.oneOf("a", "b", "c", "d"), Gen.oneOf(dvs)).map { case (p, dv) => add(p, dv) },
      4 -> Gen.zip(Gen.oneOf("a", "b", "c", "d"), Gen.oneOf(dvs)).map { case (p, dv) => remove(p, dv) },
      1 -> Gen.zip(Gen.oneOf("x", "y"), Gen.oneOf(true, false)).map { case (d, r) => DomainMetadata(d, "{}", r) },
      1 -> Gen.zip(Gen.oneOf("app1", "app2"), Gen.choose(0L, 9L)).map { case (a, v) => SetTransaction(a, v, None) },
      1 -> Gen.const(meta.copy(id = "m2")))
    val log = for {
      n <- Gen.choose(2, 8)
      commits <- Gen.listOfN(n, Gen.listOfN(3, action))
      start <- Gen.choose(1, n - 1)
      end <- Gen.choose(start, n)
    } yield (Seq(Protocol(1, 2), meta) +: commits, start, end)
    def state(s: Snapshot) = (s.protocol, s.metadata, s.files.toSet, s.tombstones.map(r => r.path -> r.deletionVector).toSet,
      s.transactions, s.domains)
    forAll(log, minSuccessful(500)) { case (commits, start, end) =>
      val compaction = new LogReplay(root)
      commits.slice(start, end + 1).foreach(compaction.append)
      val replaced = commits.take(start) ++ Seq(compaction.reconciled) ++ commits.drop(end + 1)
      assert(state(replay(replaced: _*)) == state(replay(commits: _*)))
    }
  }

  test("a commit's file actions are told from its others by their first key, however the line is spaced") {
    val actions = Seq[Action](add("a/b.parquet", dv1), remove("c", None), AddCDCFile("_change_data/x", Map.empty, 3, Map.empty),
      Protocol(1, 2), meta, SetTransaction("app", 3, None), DomainMetadata("delta.clustering", "{}", removed = false),
      CommitInfo(ActionCodec.mapper.readTree("""{"operation":"WRITE","add":1}""")))
    val spacing = Gen.listOf(Gen.oneOf(' ', '\t')).map(_.mkString)
    forAll(Gen.oneOf(actions), spacing, spacing) { (a, before, after) =>
      val line = before + "{" + after + ActionCodec.toJson(a).stripPrefix("{")
      val isFile = a match { case _: AddFile | _: RemoveFile | _: AddCDCFile => true; case _ => false }
      assert(LogFiles.isFileAction(line) == isFile, line)
    }
  }
}
