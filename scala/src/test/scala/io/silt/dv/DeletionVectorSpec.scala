package io.silt.dv

import java.nio.file.Files

import io.silt.errors.CorruptDeletionVectorException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class DeletionVectorSpec extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val conf = new Configuration()
  private def hex(b: Array[Byte]) = b.map("%02x".format(_)).mkString

  test("Z85 round trips and decodes the UUID example of the protocol") {
    forAll(Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue)).map(l => l.take(l.size / 4 * 4).toArray)) { bytes =>
      assert(Z85.decode(Z85.encode(bytes)).sameElements(bytes))
    }
    val d = DeletionVectorDescriptor(DvStorage.Relative, "ab^-aqEH.-t@S}K{vb[*k^", Some(1), 10, 1)
    assert(d.filePath(new Path("file:/t")) == new Path("file:/t/ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin"))
    // a padded tail: two '#' say two bytes are missing, "093" is 0x0300
    assert(hex(Z85.decode("00000##093")) == "000000000300")
    intercept[IllegalArgumentException](Z85.decode("$$$$$"))
    intercept[IllegalArgumentException](Z85.decode("abcd~"))
    intercept[IllegalArgumentException](Z85.decode("abcd"))
  }

  test("the corrected inline example decodes to rows 3, 4, 7, 11, 18, 29") {
    val dv = DeletionVectorDescriptor(DvStorage.Inline, "^Bg9^0rr910000000000iXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L", None, 44, 6)
    val bitmap = DeletionVectorStore.load(dv, new Path("file:/unused"), "data.parquet", conf)
    assert(bitmap.toArray.toSeq == Seq(3L, 4L, 7L, 11L, 18L, 29L))
    assert(hex(bitmap.serialize()).startsWith("d1d33964"))
    assert(DeletionVectorDescriptor.inline(bitmap.serialize(), 6, bitmap.last).pathOrInlineDv == dv.pathOrInlineDv)
  }

  test("bitmaps round trip, across the 32-bit boundary too") {
    val rows = Gen.listOf(Gen.oneOf(Gen.choose(0L, 100000L), Gen.choose(0L, Long.MaxValue / 2)))
    forAll(rows) { rs =>
      val b = RoaringBitmapArray.of(rs: _*)
      val back = RoaringBitmapArray.deserialize(b.serialize())
      assert(back.toArray.toSeq == rs.distinct.sorted)
      assert(back.cardinality == rs.distinct.size)
      rs.foreach(r => assert(back.contains(r)))
    }
  }

  test("set operations agree with sets of row indexes, across the 32-bit boundary too") {
    val rows = Gen.listOf(Gen.oneOf(Gen.choose(0L, 64L), Gen.choose(4294967290L, 4294967300L)))
    forAll(rows, rows) { (as, bs) =>
      val (a, b) = (RoaringBitmapArray.of(as: _*), RoaringBitmapArray.of(bs: _*))
      assert(a.andNot(b).toArray.toSet == as.toSet -- bs)
      assert(a.intersect(b).toArray.toSet == as.toSet.intersect(bs.toSet))
      assert(a.union(b).toArray.toSet == as.toSet ++ bs)
      assert(a.containsAll(b) == bs.toSet.subsetOf(as.toSet))
      assert(a.andNot(b).intersect(b).isEmpty)
    }
    forAll(Gen.oneOf(Gen.choose(0L, 70000L), Gen.choose(4294967290L, 4294967300L))) { n =>
      val all = RoaringBitmapArray.allBelow(n)
      assert(all.cardinality == n && !all.contains(n) && (n == 0 || all.contains(n - 1)) && all.last == Some(n - 1).filter(_ >= 0))
    }
  }

  test("several DVs share one file; each reads back through its descriptor") {
    val table = new Path(Files.createTempDirectory("silt-dv").toUri)
    val bitmaps = Seq(RoaringBitmapArray.of(1, 2, 3), RoaringBitmapArray.of(5000000000L), RoaringBitmapArray.of(0L until 10000L: _*))
    val descriptors = DeletionVectorStore.write(bitmaps.map(identity), table, conf, inlineThreshold = 0)
    assert(descriptors.map(_.filePath(table)).distinct.size == 1)
    assert(descriptors.head.offset.contains(1))
    descriptors.zip(bitmaps).foreach { case (d, b) =>
      assert(DeletionVectorStore.load(d, table, "f.parquet", conf) == b)
    }
    val inline = DeletionVectorStore.write(Seq(RoaringBitmapArray.of(7)), table, conf, inlineThreshold = 1000)
    assert(inline.head.isInline && DeletionVectorStore.load(inline.head, table, "f", conf) == RoaringBitmapArray.of(7))
  }

  test("wrong size, checksum, magic, cardinality and a missing file are named errors") {
    val table = new Path(Files.createTempDirectory("silt-dv").toUri)
    val d = DeletionVectorStore.write(Seq(RoaringBitmapArray.of(1, 2, 3)), table, conf, 0).head
    def err(dv: DeletionVectorDescriptor) = intercept[CorruptDeletionVectorException](DeletionVectorStore.load(dv, table, "part-1.parquet", conf)).getMessage
    assert(err(d.copy(sizeInBytes = d.sizeInBytes - 1)).contains("descriptor says"))
    assert(err(d.copy(sizeInBytes = d.sizeInBytes + 1)).contains("past the end"))
    assert(err(d.copy(offset = Some(10000))).contains("past the end"))
    assert(err(d.copy(offset = Some(0))).contains("past the end"))
    assert(err(d.copy(cardinality = 4)).contains("holds 3 rows"))
    assert(err(d.copy(pathOrInlineDv = Z85.encodeUuid(java.util.UUID.randomUUID()))).contains("does not exist"))
    val file = new java.io.File(d.filePath(table).toUri)
    val bytes = Files.readAllBytes(file.toPath)
    bytes(bytes.length - 6) = (bytes(bytes.length - 6) ^ 0xff).toByte // inside the bitmap
    Files.write(file.toPath, bytes)
    val m = err(d) // the DV's own CRC-32, not Hadoop's .crc file beside it (which the reader skips)
    assert(m.contains("checksum") && m.contains("part-1.parquet"))
    val badMagic = DeletionVectorDescriptor.inline(Array.fill[Byte](16)(1), 0, None)
    assert(err(badMagic).contains("magic"))
  }
}
