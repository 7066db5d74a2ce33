package io.silt.fuzz

import com.fasterxml.jackson.core.JsonProcessingException
import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorStore, DvStorage, RoaringBitmapArray, Z85}
import io.silt.errors.CorruptDeletionVectorException
import io.silt.actions.{ActionCodec, AddFile}
import io.silt.sql.SiltSqlParser
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.parser.{CatalystSqlParser, ParseException}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Fuzzes the decoders that read untrusted bytes: the DV bitmap codec, Z85, the commit JSON
 * codec and the Silt SQL parser. Each must return a value or fail with its documented error,
 * never anything else. The budget is SILT_FUZZ_CASES per property (`make fuzz` raises it).
 */
class DecoderFuzzSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val cases = sys.env.get("SILT_FUZZ_CASES").map(_.toInt).getOrElse(1500)
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = org.scalactic.anyvals.PosInt.from(cases).get, maxDiscardedFactor = 1.0)

  private val byte = Gen.choose(Byte.MinValue, Byte.MaxValue)

  /** A valid input damaged by a few byte flips, a truncation or an extension. */
  private def mutated(valid: Gen[Array[Byte]]): Gen[Array[Byte]] = for {
    v <- valid
    flips <- Gen.listOf(Gen.zip(Gen.choose(0, math.max(v.length - 1, 0)), byte)).map(_.take(4))
    cut <- Gen.choose(0, v.length)
    tail <- Gen.listOf(byte).map(_.take(16))
    how <- Gen.choose(0, 3)
  } yield {
    val b = v.clone()
    if (b.nonEmpty) flips.foreach { case (i, x) => b(i) = x }
    how match {
      case 0 => b
      case 1 => b.take(cut)
      case 2 => b ++ tail
      case _ => tail.toArray
    }
  }

  private val validBitmap: Gen[Array[Byte]] =
    Gen.listOf(Gen.oneOf(Gen.choose(0L, 70000L), Gen.choose(0L, 1L << 34))).map(rows => RoaringBitmapArray.of(rows: _*).serialize())

  test("the DV bitmap decoder returns a bitmap or names the damage") {
    forAll(mutated(validBitmap)) { bytes =>
      try RoaringBitmapArray.deserialize(bytes) catch { case _: IllegalArgumentException => () }
    }
  }

  test("an inline DV of damaged bytes loads or fails as CorruptDeletionVectorException") {
    forAll(mutated(validBitmap), Gen.choose(0L, 100L)) { (bytes, cardinality) =>
      val padded = bytes ++ Array.fill[Byte]((4 - bytes.length % 4) % 4)(0)
      val dv = DeletionVectorDescriptor(DvStorage.Inline, Z85.encode(padded), None, padded.length, cardinality)
      try DeletionVectorStore.load(dv, new Path("file:/t"), "file:/t/part-0.parquet", new Configuration())
      catch { case _: CorruptDeletionVectorException => () }
    }
  }

  test("the Z85 decoder returns bytes or rejects the text") {
    val z85Char = Gen.oneOf("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$##~\" \u00e9")
    forAll(Gen.listOf(z85Char).map(_.mkString)) { s =>
      try Z85.decode(s) catch { case _: IllegalArgumentException => () }
    }
  }

  private val validActionLine: Gen[String] = for {
    size <- Gen.choose(0L, Long.MaxValue)
    n <- Gen.choose(0, 5)
    path <- Gen.alphaNumStr
  } yield {
    val add = AddFile(s"$path.parquet", (0 until n).map(i => s"p$i" -> i.toString).toMap, size, 1700000000000L, dataChange = true,
      Some("""{"numRecords":3,"minValues":{"a":1},"maxValues":{"a":9},"nullCount":{"a":0}}"""))
    ActionCodec.toJson(add)
  }

  test("the commit JSON codec reads an action or rejects the line") {
    val lines = Gen.oneOf(mutated(validActionLine.map(_.getBytes("UTF-8"))).map(new String(_, "UTF-8")),
      Gen.oneOf("{}", "[]", "null", "1", "{\"add\": 5}", "{\"add\": {}}", "{\"remove\": []}", "{\"txn\": {\"appId\": {}}}",
        "{\"metaData\": {\"schemaString\": 3}}", "{\"protocol\": {\"minReaderVersion\": \"x\"}}", "[" * 5000))
    forAll(lines) { line =>
      try ActionCodec.fromJson(line) catch {
        case _: IllegalArgumentException | _: JsonProcessingException => ()
      }
    }
  }

  test("the Silt SQL parser parses, declines or raises a ParseException") {
    val parser = new SiltSqlParser(CatalystSqlParser)
    val token = Gen.oneOf("OPTIMIZE", "ZORDER", "BY", "VACUUM", "RETAIN", "HOURS", "DRY", "RUN", "REORG", "TABLE", "APPLY",
      "(PURGE)", "CHECKPOINT", "RESTORE", "TO", "VERSION", "AS", "OF", "TIMESTAMP", "DESCRIBE", "HISTORY", "DETAIL", "FILES",
      "LIMIT", "WHERE", "t", "`a b`", "'/p'", "silt.`/x`", "1", "-3", "1e400", "(", ")", ",", ";", "=", "'", "`", "\u0000")
    forAll(Gen.listOf(token).map(_.mkString(" "))) { sql =>
      try parser.parseSilt(sql) catch { case _: ParseException | _: IllegalArgumentException => () }
    }
  }
}
