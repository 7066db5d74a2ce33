package io.silt.read

import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * The Parquet row index column of one file read whole with no filter pushed down, by counting
 * the rows of each batch: the reader then returns every row in file order. Spark's own generator
 * boxes every index, and took about half of the scan a DELETE with deletion vectors runs.
 *
 * The reader produced its batches without the column; `position` is where it goes (the columns
 * at and after it, partition columns included, move one place right).
 */
final class RowIndexCounter(position: Int, offHeap: Boolean) {
  private var next = 0L
  private val indexes = new ReusableVector(LongType, offHeap)

  /** `batch` with the row indexes of its rows inserted at `position`. */
  def addTo(batch: ColumnarBatch): ColumnarBatch = {
    val n = batch.numRows()
    val vector = indexes.forRows(n)
    val first = next
    var i = 0
    while (i < n) {
      vector.putLong(i, first + i)
      i += 1
    }
    next += n
    val columns = new Array[ColumnVector](batch.numCols() + 1)
    var c = 0
    while (c < columns.length) {
      columns(c) = if (c < position) batch.column(c) else if (c == position) vector else batch.column(c - 1)
      c += 1
    }
    val out = new ColumnarBatch(columns)
    out.setNumRows(n)
    out
  }
}
