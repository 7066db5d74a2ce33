package io.silt.read

import java.nio.charset.StandardCharsets.UTF_8

import org.apache.spark.sql.execution.vectorized.{ConstantColumnVector, Dictionary, OffHeapColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class BatchCompactionSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  private val Dec = DecimalType(25, 3)
  private val Point = StructType(Seq(StructField("x", IntegerType), StructField("y", StringType)))
  private val Ints = ArrayType(IntegerType)
  /** Column types as the Parquet reader fills them; "dict" columns hold dictionary ids. */
  private val columns: Seq[(String, DataType)] = Seq("b" -> BooleanType, "i" -> IntegerType, "i_dict" -> IntegerType,
    "l" -> LongType, "d" -> DoubleType, "s" -> StringType, "s_dict" -> StringType, "dec" -> Dec, "point" -> Point,
    "ints" -> Ints, "sh" -> ShortType, "ts" -> TimestampType)
  private val words = Vector("", "a", "βeta", "gamma delta", "x" * 40)

  /** Row `r`'s value in column `c`, or null for some rows (more of them when `nullRate` is high). */
  private def cell(c: Int, r: Int, nullRate: Int): Any =
    if (nullRate > 0 && (r * 31 + c * 17) % 10 < nullRate) null
    else columns(c)._2 match {
      case BooleanType => r % 3 == 0
      case IntegerType => r * 7 - 1000
      case LongType => r.toLong << 33
      case DoubleType => r * 0.5
      case StringType => words(r % words.size)
      case _: DecimalType => BigDecimal(r) * BigDecimal("1000000000000.125")
      case _: StructType => (r, words((r + 1) % words.size))
      case _: ArrayType => Seq.tabulate(r % 4)(k => r + k)
      case ShortType => (r % 30000).toShort
      case TimestampType => r.toLong * 1000
      case other => throw new IllegalArgumentException(other.simpleString)
    }

  private def vector(dataType: DataType, capacity: Int, offHeap: Boolean): WritableColumnVector =
    if (offHeap) new OffHeapColumnVector(capacity, dataType) else new OnHeapColumnVector(capacity, dataType)

  private def fill(c: Int, rows: Int, nullRate: Int, offHeap: Boolean): WritableColumnVector = {
    val (name, dataType) = columns(c)
    val v = vector(dataType, math.max(rows, 1), offHeap)
    val ids = if (name.endsWith("_dict")) v.reserveDictionaryIds(math.max(rows, 1)) else null
    if (ids != null) v.setDictionary(new Dictionary {
      // Dictionary entry k is the value of row k.
      def decodeToInt(id: Int): Int = cell(c, id, 0).asInstanceOf[Int]
      def decodeToLong(id: Int): Long = throw new UnsupportedOperationException
      def decodeToFloat(id: Int): Float = throw new UnsupportedOperationException
      def decodeToDouble(id: Int): Double = throw new UnsupportedOperationException
      def decodeToBinary(id: Int): Array[Byte] = cell(c, id, 0).asInstanceOf[String].getBytes(UTF_8)
    })
    (0 until rows).foreach { r =>
      cell(c, r, nullRate) match {
        case null => v.putNull(r)
        case _ if ids != null => ids.putInt(r, r)
        case x: Boolean => v.putBoolean(r, x)
        case x: Int => v.putInt(r, x)
        case x: Short => v.putShort(r, x)
        case x: Long => v.putLong(r, x)
        case x: Double => v.putDouble(r, x)
        case x: String => v.putByteArray(r, x.getBytes(UTF_8))
        case x: BigDecimal => v.putDecimal(r, org.apache.spark.sql.types.Decimal(x, Dec.precision, Dec.scale), Dec.precision)
        case (x: Int, y: String) =>
          v.getChild(0).putInt(r, x)
          v.getChild(1).putByteArray(r, y.getBytes(UTF_8))
        case xs: Seq[_] =>
          val at = v.arrayData().getElementsAppended
          xs.foreach(x => v.arrayData().appendInt(x.asInstanceOf[Int]))
          v.putArray(r, at, xs.size)
      }
    }
    v
  }

  /** What the vector holds at row `r`, in the form `cell` returns. */
  private def read(v: ColumnVector, dataType: DataType, r: Int): Any =
    if (v.isNullAt(r)) null
    else dataType match {
      case BooleanType => v.getBoolean(r)
      case IntegerType => v.getInt(r)
      case ShortType => v.getShort(r)
      case LongType | TimestampType => v.getLong(r)
      case DoubleType => v.getDouble(r)
      case StringType => v.getUTF8String(r).toString
      case d: DecimalType => v.getDecimal(r, d.precision, d.scale).toBigDecimal
      case _: StructType => (v.getChild(0).getInt(r), v.getChild(1).getUTF8String(r).toString)
      case _: ArrayType => v.getArray(r).toIntArray.toSeq
    }

  test("removing rows keeps every other row, in order, in every column type, on and off heap, with nulls and dictionaries") {
    val cases = for {
      rows <- Gen.choose(1, 700)
      removed <- Gen.containerOf[Set, Int](Gen.choose(0, rows - 1))
      nullRate <- Gen.choose(0, 5)
      offHeap <- Gen.oneOf(false, true)
    } yield (rows, removed.toArray.sorted, nullRate, offHeap)
    forAll(cases) { case (rows, removed, nullRate, offHeap) =>
      val constant = new ConstantColumnVector(math.max(rows, 1), IntegerType)
      constant.setInt(42)
      val vectors: Array[ColumnVector] = columns.indices.map(c => fill(c, rows, nullRate, offHeap)).toArray :+ constant
      val batch = new ColumnarBatch(vectors)
      batch.setNumRows(rows)
      val kept = (0 until rows).filterNot(removed.toSet)
      try {
        BatchCompaction.removeRows(batch, removed, removed.length)
        assert(batch.numRows() == kept.size)
        columns.indices.foreach { c =>
          val got = kept.indices.map(r => read(batch.column(c), columns(c)._2, r))
          assert(got == kept.map(r => cell(c, r, nullRate) match {
            case b: BigDecimal => b.setScale(Dec.scale)
            case other => other
          }), s"column ${columns(c)._1}")
        }
        assert(kept.indices.forall(r => batch.column(columns.size).getInt(r) == 42))
      } finally batch.close()
    }
  }

  test("on-heap vectors have the arrays the fast path moves (else it would fall back to the slower API)") {
    assert(BatchCompaction.movesOnHeapArrays)
  }

  test("only types whose rows can be moved are read as batches from files with deletion vectors") {
    assert(columns.forall(c => BatchCompaction.supports(c._2)))
    assert(BatchCompaction.supports(MapType(StringType, Point)) && BatchCompaction.supports(VariantType))
    assert(!BatchCompaction.supports(StructType(Seq(StructField("u", ObjectType(classOf[String]))))))
  }
}
