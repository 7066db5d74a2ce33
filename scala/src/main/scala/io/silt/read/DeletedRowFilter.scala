package io.silt.read

import io.silt.dv.RoaringBitmapArray
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, UnsafeProjection}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * Drops the rows a file's deletion vector marks, by Parquet row index, from what the Parquet
 * reader returns (and, given `keepOnly`, the rows it does not mark: how the change data feed reads
 * the rows a new deletion vector deleted, or an old one's that came back): batches are compacted in place ([[BatchCompaction]]), rows are skipped. The
 * vectorized reader stays on and the plan gets no filter.
 *
 * The reader produced `readSchema` (the wanted columns, with the row index at
 * `rowIndexPosition`) followed by the partition columns. Unless `keepRowIndex` (the scan wants
 * `_metadata.row_index` too), the row index column is left out of the output.
 */
final class DeletedRowFilter(
    deleted: Option[RoaringBitmapArray],
    keepOnly: Option[RoaringBitmapArray],
    readSchema: StructType,
    rowIndexPosition: Int,
    keepRowIndex: Boolean,
    partitionSchema: StructType) {

  private val outputWidth = readSchema.length + partitionSchema.length - (if (keepRowIndex) 0 else 1)
  /** For each output column, its place in the reader's output. */
  private val sources: Array[Int] = Array.tabulate(outputWidth)(i => if (keepRowIndex || i < rowIndexPosition) i else i + 1)
  private val lowRows = if (keepOnly.isDefined) None else deleted.flatMap(_.lowRows)
  private var removed = new Array[Int](64)

  /** `batch` without its deleted rows. */
  def filterBatch(batch: ColumnarBatch): ColumnarBatch = {
    val count = deletedRowsOf(batch)
    if (count > 0) BatchCompaction.removeRows(batch, removed, count)
    if (keepRowIndex) batch
    else {
      val columns = new Array[ColumnVector](outputWidth)
      var c = 0
      while (c < outputWidth) {
        columns(c) = batch.column(sources(c))
        c += 1
      }
      val out = new ColumnarBatch(columns)
      out.setNumRows(batch.numRows())
      out
    }
  }

  /** Fills `removed` with the batch positions of its deleted rows, ascending; returns how many. */
  private def deletedRowsOf(batch: ColumnarBatch): Int = {
    val n = batch.numRows()
    if (n == 0 || (deleted.isEmpty && keepOnly.isEmpty)) return 0
    val rowIndexes = batch.column(rowIndexPosition)
    val first = rowIndexes.getLong(0)
    val last = rowIndexes.getLong(n - 1)
    var count = 0
    def add(position: Int): Unit = {
      if (count == removed.length) removed = java.util.Arrays.copyOf(removed, math.min(n, count * 2))
      removed(count) = position
      count += 1
    }
    lowRows match {
      case Some(bitmap) if last - first == n - 1 && last <= 0xffffffffL =>
        // Contiguous row indexes: visit only the deleted rows of this range.
        val it = bitmap.getIntIterator
        it.advanceIfNeeded(first.toInt)
        while (it.hasNext && (it.peekNext() & 0xffffffffL) <= last) add(((it.next() & 0xffffffffL) - first).toInt)
      case _ =>
        var i = 0
        while (i < n) {
          if (isDeleted(rowIndexes.getLong(i))) add(i)
          i += 1
        }
    }
    count
  }

  private lazy val projection = {
    val types = readSchema.map(_.dataType) ++ partitionSchema.map(_.dataType)
    UnsafeProjection.create(sources.toSeq.map(s => BoundReference(s, types(s), nullable = true)))
  }

  /** `rows` without the deleted ones. */
  def filterRows(rows: Iterator[InternalRow]): Iterator[InternalRow] = {
    val kept = if (deleted.isEmpty && keepOnly.isEmpty) rows else rows.filter(row => !isDeleted(row.getLong(rowIndexPosition)))
    if (keepRowIndex) kept else kept.map(projection)
  }

  private def isDeleted(rowIndex: Long): Boolean =
    deleted.exists(_.contains(rowIndex)) || keepOnly.exists(!_.contains(rowIndex))
}

object DeletedRowFilter {
  /** Per-file metadata keys attached to files with a deletion vector. */
  val DescriptorKey = "silt_dv_descriptor"
  val TablePathKey = "silt_table_path"
  /** A deletion vector whose rows alone are read (see `keepOnly`). */
  val KeepOnlyKey = "silt_dv_keep_only"
}
