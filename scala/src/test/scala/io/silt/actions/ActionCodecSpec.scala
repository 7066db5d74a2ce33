package io.silt.actions

import io.silt.dv.{DeletionVectorDescriptor, DvStorage}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class ActionCodecSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val text = Gen.listOf(Gen.oneOf(Gen.alphaNumChar, Gen.oneOf(' ', '%', '"', '\\', 'é', '/', '=', '\n'))).map(_.mkString)
  private val dvGen = for {
    t <- Gen.oneOf(DvStorage.Relative, DvStorage.Inline, DvStorage.Absolute)
    p <- Gen.alphaNumStr
    off <- Gen.option(Gen.choose(1, 1000))
    size <- Gen.choose(1, 10000)
    card <- Gen.choose(0L, 1000000L)
  } yield DeletionVectorDescriptor(t, p, off, size, card)
  private val addGen = for {
    path <- text.suchThat(_.nonEmpty)
    parts <- Gen.mapOf(Gen.zip(Gen.alphaStr.suchThat(_.nonEmpty), Gen.option(text).map(_.orNull)))
    size <- Gen.choose(0L, Long.MaxValue)
    mtime <- Gen.choose(0L, Long.MaxValue)
    dataChange <- Gen.oneOf(true, false)
    stats <- Gen.option(text)
    dv <- Gen.option(dvGen)
  } yield AddFile(path, parts, size, mtime, dataChange, stats, Map.empty, dv)

  test("add actions survive a JSON round trip") {
    forAll(addGen) { add =>
      assert(ActionCodec.fromJson(ActionCodec.toJson(add)) == add)
    }
  }

  test("remove, protocol, metadata, txn and domainMetadata round trip") {
    val actions = Seq(
      RemoveFile("a%20b.parquet", Some(5L), dataChange = true, Some(true), Map("p" -> null), Some(10L)),
      Protocol(3, 7, Some(Set("deletionVectors")), Some(Set("deletionVectors", "appendOnly"))),
      Protocol(1, 2),
      Metadata("id", Some("n"), None, Format(), """{"type":"struct","fields":[]}""", Seq("p"), Map("k" -> "v"), Some(1L)),
      SetTransaction("app", 3, Some(9L)),
      DomainMetadata("d", "{}", removed = false))
    actions.foreach(a => assert(ActionCodec.fromJson(ActionCodec.toJson(a)) == a))
  }

  test("unknown actions are kept verbatim") {
    val line = """{"checkpointMetadata":{"version":3,"tags":{"x":"y"}}}"""
    val parsed = ActionCodec.fromJson(line)
    assert(parsed.isInstanceOf[UnknownAction])
    assert(ActionCodec.toJson(parsed) == line)
  }

  test("a change data file round-trips") {
    val line = """{"cdc":{"path":"_change_data/p=1/c.parquet","partitionValues":{"p":"1"},"size":3,"dataChange":false}}"""
    val parsed = ActionCodec.fromJson(line)
    assert(parsed == AddCDCFile("_change_data/p=1/c.parquet", Map("p" -> "1"), 3))
    assert(ActionCodec.toJson(parsed) == line)
  }

  test("a truncated line is an error, not an action") {
    val line = ActionCodec.toJson(AddFile("p", Map.empty, 1, 1, dataChange = true))
    (1 until line.length by 7).foreach { n =>
      intercept[Exception](ActionCodec.fromJson(line.take(n)))
    }
  }

  test("uniqueId carries the offset when there is one") {
    assert(DeletionVectorDescriptor(DvStorage.Relative, "ab^-aqEH.-t@S}K{vb[*k^", Some(1), 10, 2).uniqueId == "uab^-aqEH.-t@S}K{vb[*k^@1")
    assert(DeletionVectorDescriptor(DvStorage.Inline, "xyz", None, 10, 2).uniqueId == "ixyz")
  }
}
