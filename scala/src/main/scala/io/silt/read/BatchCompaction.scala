package io.silt.read

import java.lang.reflect.{Field, Modifier}

import scala.util.Try

import org.apache.spark.sql.execution.vectorized.{ConstantColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types._
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * Removes rows from a batch the Parquet reader filled, in place: every column's surviving rows
 * move up over the removed ones, so the batch reaches Spark's generated code as if the rows had
 * never been read. A flag column and a filter in the plan would do the same, but a filter alone
 * made a full scan 6-9% slower (as much as all else deletion vectors add), so the plan of a scan
 * with deletion vectors is now the plan without them.
 */
object BatchCompaction {

  /**
   * Drops rows `removed(0 until count)` (ascending, distinct, each below `batch.numRows`) from
   * `batch`. Constant columns (partition values, file metadata, columns missing from the file)
   * are the same in every row and are left as they are.
   */
  def removeRows(batch: ColumnarBatch, removed: Array[Int], count: Int): Unit = {
    if (count == 0) return
    val n = batch.numRows()
    var c = 0
    while (c < batch.numCols()) {
      compact(batch.column(c), n, removed, count)
      c += 1
    }
    batch.setNumRows(n - count)
  }

  private def compact(column: ColumnVector, n: Int, removed: Array[Int], count: Int): Unit = column match {
    case _: ConstantColumnVector =>
    case w: WritableColumnVector if w.isAllNull =>
    case w: WritableColumnVector => compactWritable(w, n, removed, count)
    case other => throw new IllegalStateException(
      s"cannot drop deleted rows from a ${other.getClass.getName} column of type ${other.dataType.simpleString}")
  }

  /** Whether columns of this type can be compacted (scans of other types read rows, not batches). */
  def supports(dataType: DataType): Boolean = dataType match {
    case BooleanType | ByteType | ShortType | IntegerType | DateType | _: YearMonthIntervalType | LongType | TimestampType |
         TimestampNTZType | _: DayTimeIntervalType | FloatType | DoubleType | _: DecimalType | _: StringType | BinaryType |
         CalendarIntervalType | VariantType | NullType => true
    case _: ArrayType | _: MapType => true // the elements stay where they are
    case s: StructType => s.fields.forall(f => supports(f.dataType))
    case _ => false
  }

  private def compactWritable(w: WritableColumnVector, n: Int, removed: Array[Int], count: Int): Unit = w match {
    case onHeap: OnHeapColumnVector if OnHeapArrays.readable => compactOnHeap(onHeap, n, removed, count)
    case _ => compactThroughApi(w, n, removed, count)
  }

  /**
   * On-heap vectors keep each kind of value in an array of their own, which moves in one
   * System.arraycopy per run of kept rows: a third of the memory traffic of copying a run out
   * through the public API (a new array) and back.
   */
  private def compactOnHeap(w: OnHeapColumnVector, n: Int, removed: Array[Int], count: Int): Unit = {
    def moveArray(array: AnyRef): Unit = if (array != null) segments(n, removed, count)((from, to, length) =>
      System.arraycopy(array, from, array, to, length))
    if (w.hasNull) moveArray(OnHeapArrays.nulls(w))
    if (w.hasDictionary) compactWritable(w.getDictionaryIds, n, removed, count)
    else if (hasRowChildren(w.dataType)) compactChildren(w, n, removed, count)
    else OnHeapArrays.values(w).foreach(moveArray) // only the arrays the type uses are allocated
  }

  /** Off-heap vectors, or on-heap ones if a Spark version renamed their arrays. */
  private def compactThroughApi(w: WritableColumnVector, n: Int, removed: Array[Int], count: Int): Unit = {
    if (w.hasNull) segments(n, removed, count) { (from, to, length) =>
      var i = 0
      while (i < length) {
        if (w.isNullAt(from + i)) w.putNull(to + i) else w.putNotNull(to + i)
        i += 1
      }
    }
    def each(move: Move): Unit = segments(n, removed, count)(move)
    if (w.hasDictionary) compactWritable(w.getDictionaryIds, n, removed, count)
    else if (hasRowChildren(w.dataType)) compactChildren(w, n, removed, count)
    else w.dataType match {
      case BooleanType | ByteType => each((from, to, length) => w.putBytes(to, length, w.getBytes(from, length), 0))
      case ShortType => each((from, to, length) => w.putShorts(to, length, w.getShorts(from, length), 0))
      case IntegerType | DateType | _: YearMonthIntervalType => each((from, to, length) => w.putInts(to, length, w.getInts(from, length), 0))
      case d: DecimalType if DecimalType.is32BitDecimalType(d) => each((from, to, length) => w.putInts(to, length, w.getInts(from, length), 0))
      case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType =>
        each((from, to, length) => w.putLongs(to, length, w.getLongs(from, length), 0))
      case d: DecimalType if DecimalType.is64BitDecimalType(d) => each((from, to, length) => w.putLongs(to, length, w.getLongs(from, length), 0))
      case FloatType => each((from, to, length) => w.putFloats(to, length, w.getFloats(from, length), 0))
      case DoubleType => each((from, to, length) => w.putDoubles(to, length, w.getDoubles(from, length), 0))
      // Variable-length values: each row points into a child vector, which stays as it is.
      case _: StringType | BinaryType | _: DecimalType | _: ArrayType | _: MapType => each { (from, to, length) =>
        var i = 0
        while (i < length) {
          w.putArray(to + i, w.getArrayOffset(from + i), w.getArrayLength(from + i))
          i += 1
        }
      }
      case other => throw new IllegalStateException(s"cannot drop deleted rows from a column of type ${other.simpleString}")
    }
  }

  /** Whether on-heap vectors are moved by arraycopy (this Spark's vector layout is the one known here). */
  private[read] def movesOnHeapArrays: Boolean = OnHeapArrays.readable

  /** Types whose child vectors hold one entry per row (array and map children hold the elements). */
  private def hasRowChildren(dataType: DataType): Boolean = dataType match {
    case _: StructType | CalendarIntervalType | VariantType => true
    case _ => false
  }

  private def compactChildren(w: WritableColumnVector, n: Int, removed: Array[Int], count: Int): Unit = {
    var c = 0
    while (c < w.getNumChildren) {
      compact(w.getChild(c), n, removed, count)
      c += 1
    }
  }

  /** Moves `length` rows from `from` to `to` (a SAM with primitive parameters: Function3 would box them). */
  private trait Move {
    def apply(from: Int, to: Int, length: Int): Unit
  }

  /** Calls `move(from, to, length)` for each run of kept rows after the first removed one, in order. */
  private def segments(n: Int, removed: Array[Int], count: Int)(move: Move): Unit = {
    var to = removed(0)
    var k = 0
    while (k < count) {
      val from = removed(k) + 1
      val end = if (k + 1 < count) removed(k + 1) else n
      if (end > from) {
        move(from, to, end - from)
        to += end - from
      }
      k += 1
    }
  }

  /**
   * The private arrays of [[OnHeapColumnVector]], when this Spark version has exactly these (an
   * array it added would not be moved, so then every vector goes through the public API).
   */
  private object OnHeapArrays {
    private val valueNames = Seq("byteData", "shortData", "intData", "longData", "floatData", "doubleData", "arrayLengths", "arrayOffsets")
    private def field(name: String): Option[Field] = Try {
      val f = classOf[OnHeapColumnVector].getDeclaredField(name)
      f.setAccessible(true)
      f
    }.toOption
    private val arrayFieldNames = classOf[OnHeapColumnVector].getDeclaredFields.toSeq
      .filter(f => f.getType.isArray && !Modifier.isStatic(f.getModifiers)).map(_.getName).toSet
    private val nullsField = field("nulls")
    private val valueFields = valueNames.map(field)
    val readable: Boolean =
      nullsField.isDefined && valueFields.forall(_.isDefined) && arrayFieldNames == (valueNames :+ "nulls").toSet
    private val valueArray = valueFields.flatten.toArray

    def nulls(w: OnHeapColumnVector): AnyRef = nullsField.get.get(w)
    def values(w: OnHeapColumnVector): Array[AnyRef] = valueArray.map(_.get(w))
  }
}
