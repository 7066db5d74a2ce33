package io.silt.read

import org.apache.spark.sql.execution.vectorized.OnHeapColumnVector
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

class RowIndexCounterSpec extends AnyFunSuite with ScalaCheckPropertyChecks {

  /** A batch of `columns` int columns holding (column * 1000000 + row) in each cell. */
  private def batch(columns: Int, rows: Int): ColumnarBatch = {
    val vectors: Array[ColumnVector] = Array.tabulate(columns) { c =>
      val v = new OnHeapColumnVector(math.max(rows, 1), IntegerType)
      (0 until rows).foreach(r => v.putInt(r, c * 1000000 + r))
      v
    }
    val b = new ColumnarBatch(vectors)
    b.setNumRows(rows)
    b
  }

  test("the inserted column counts rows across batches; the others keep their data and order") {
    val sizes = Gen.listOf(Gen.oneOf(Gen.const(0), Gen.choose(1, 5000)))
    forAll(Gen.choose(0, 4), Gen.choose(0, 4), sizes) { (columns, at, batchSizes) =>
      val position = math.min(at, columns)
      val counter = new RowIndexCounter(position, offHeap = false)
      var seen = 0L
      batchSizes.foreach { n =>
        val out = counter.addTo(batch(columns, n))
        assert(out.numRows() == n && out.numCols() == columns + 1)
        (0 until n).foreach { r =>
          assert(out.column(position).getLong(r) == seen + r)
          (0 until columns).foreach { c =>
            val moved = if (c < position) c else c + 1
            assert(out.column(moved).getInt(r) == c * 1000000 + r)
          }
        }
        seen += n
      }
    }
  }
}
