package io.silt.read

import java.lang.reflect.{Field, Modifier}

import scala.util.Try

import io.silt.shims.SparkTypes
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
    val runs = new KeptRuns(batch.numRows(), removed, count)
    var c = 0
    while (c < batch.numCols()) {
      compact(batch.column(c), runs)
      c += 1
    }
    batch.setNumRows(batch.numRows() - count)
  }

  /** Whether columns of this type can be compacted (scans of other types read rows, not batches). */
  def supports(dataType: DataType): Boolean = layout(dataType).isDefined

  /** Whether on-heap vectors are moved by arraycopy (this Spark's vector layout is the one known here). */
  private[read] def movesOnHeapArrays: Boolean = OnHeapArrays.readable

  /** How a writable vector of a type keeps its rows' values. */
  private sealed trait Layout
  private case object Bytes extends Layout
  private case object Shorts extends Layout
  private case object Ints extends Layout
  private case object Longs extends Layout
  private case object Floats extends Layout
  private case object Doubles extends Layout
  /** Variable-length values: each row points into a child vector, which stays as it is. */
  private case object Offsets extends Layout
  /** One entry per row in each child vector. */
  private case object RowChildren extends Layout
  private case object NoValues extends Layout

  private def layout(dataType: DataType): Option[Layout] = dataType match {
    case BooleanType | ByteType => Some(Bytes)
    case ShortType => Some(Shorts)
    case IntegerType | DateType | _: YearMonthIntervalType => Some(Ints)
    case d: DecimalType if DecimalType.is32BitDecimalType(d) => Some(Ints)
    case LongType | TimestampType | TimestampNTZType | _: DayTimeIntervalType => Some(Longs)
    case d: DecimalType if DecimalType.is64BitDecimalType(d) => Some(Longs)
    case FloatType => Some(Floats)
    case DoubleType => Some(Doubles)
    case _: StringType | BinaryType | _: DecimalType | _: ArrayType | _: MapType => Some(Offsets)
    case s: StructType => if (s.fields.forall(f => supports(f.dataType))) Some(RowChildren) else None
    case CalendarIntervalType => Some(RowChildren)
    case t if SparkTypes.variant.contains(t) => Some(RowChildren)
    case NullType => Some(NoValues)
    case _ => None
  }

  private def compact(column: ColumnVector, runs: KeptRuns): Unit = column match {
    case _: ConstantColumnVector =>
    case w: WritableColumnVector if w.isAllNull =>
    case w: WritableColumnVector => compactWritable(w, runs)
    case other => throw new IllegalStateException(
      s"cannot drop deleted rows from a ${other.getClass.getName} column of type ${other.dataType.simpleString}")
  }

  /**
   * On-heap vectors (of the layout known here) keep each kind of value in an array of their own,
   * which moves in one System.arraycopy per run of kept rows: a third of the memory traffic of
   * copying a run out through the public API (a new array) and back. Off-heap vectors go through
   * that API.
   */
  private def compactWritable(w: WritableColumnVector, runs: KeptRuns): Unit = {
    val onHeap = w.isInstanceOf[OnHeapColumnVector] && OnHeapArrays.readable
    if (w.hasNull) {
      if (onHeap) OnHeapArrays.moveNulls(w.asInstanceOf[OnHeapColumnVector], runs)
      else runs.foreach { (from, to, length) =>
        var i = 0
        while (i < length) {
          if (w.isNullAt(from + i)) w.putNull(to + i) else w.putNotNull(to + i)
          i += 1
        }
      }
    }
    if (w.hasDictionary) compactWritable(w.getDictionaryIds, runs)
    else layout(w.dataType) match {
      case Some(RowChildren) =>
        var c = 0
        while (c < w.getNumChildren) {
          compact(w.getChild(c), runs)
          c += 1
        }
      case Some(NoValues) =>
      case Some(_) if onHeap => OnHeapArrays.moveValues(w.asInstanceOf[OnHeapColumnVector], runs)
      case Some(values) => moveThroughApi(w, values, runs)
      case None => throw new IllegalStateException(s"cannot drop deleted rows from a column of type ${w.dataType.simpleString}")
    }
  }

  private def moveThroughApi(w: WritableColumnVector, values: Layout, runs: KeptRuns): Unit = values match {
    case Bytes => runs.foreach((from, to, length) => w.putBytes(to, length, w.getBytes(from, length), 0))
    case Shorts => runs.foreach((from, to, length) => w.putShorts(to, length, w.getShorts(from, length), 0))
    case Ints => runs.foreach((from, to, length) => w.putInts(to, length, w.getInts(from, length), 0))
    case Longs => runs.foreach((from, to, length) => w.putLongs(to, length, w.getLongs(from, length), 0))
    case Floats => runs.foreach((from, to, length) => w.putFloats(to, length, w.getFloats(from, length), 0))
    case Doubles => runs.foreach((from, to, length) => w.putDoubles(to, length, w.getDoubles(from, length), 0))
    case Offsets => runs.foreach { (from, to, length) =>
      var i = 0
      while (i < length) {
        w.putArray(to + i, w.getArrayOffset(from + i), w.getArrayLength(from + i))
        i += 1
      }
    }
    case RowChildren | NoValues => throw new IllegalArgumentException(s"$values has no values of its own")
  }

  /** Moves `length` rows from `from` to `to` (a SAM with primitive parameters: Function3 would box them). */
  private trait Move {
    def apply(from: Int, to: Int, length: Int): Unit
  }

  /** The runs of kept rows of an `n`-row batch after its first removed row, each with where it moves to. */
  private final class KeptRuns(n: Int, removed: Array[Int], count: Int) {
    def foreach(move: Move): Unit = {
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

    def moveNulls(w: OnHeapColumnVector, runs: KeptRuns): Unit = move(nullsField.get.get(w), runs)

    /** Only the arrays the vector's type uses are allocated; the others are null. */
    def moveValues(w: OnHeapColumnVector, runs: KeptRuns): Unit = {
      var f = 0
      while (f < valueArray.length) {
        move(valueArray(f).get(w), runs)
        f += 1
      }
    }

    private def move(array: AnyRef, runs: KeptRuns): Unit =
      if (array != null) runs.foreach((from, to, length) => System.arraycopy(array, from, array, to, length))
  }
}
