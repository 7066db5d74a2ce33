package io.silt.read

import io.silt.dv.RoaringBitmapArray
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, JoinedRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.expressions.BoundReference
import org.apache.spark.sql.types.{ByteType, DataType, StructType}
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

/**
 * The row filter of scans: fills the `__silt_row_deleted` column (1 = deleted) of what the
 * Parquet reader returns, from the file's deletion vector and each row's Parquet row index, so
 * that a plain filter drops deleted rows and the vectorized reader stays on.
 *
 * The reader produced `readSchema` (the wanted columns without the flag, plus the row index)
 * followed by the partition columns; the output is `outputSchema` (the wanted columns with the
 * flag in its place) followed by the partition columns.
 */
final class DeletedRowMarker(
    deleted: Option[RoaringBitmapArray],
    readSchema: StructType,
    rowIndexPosition: Int,
    keepRowIndex: Boolean,
    outputSchema: StructType,
    flagPosition: Int,
    partitionSchema: StructType,
    offHeap: Boolean) {

  /** For each output column, where it comes from in the reader's output (-1: the flag). */
  private val sources: Array[Int] = {
    val fromRead = outputSchema.fields.indices.map { i =>
      if (i == flagPosition) -1
      else {
        val name = outputSchema.fields(i).name
        readSchema.fields.indices.find(j => readSchema.fields(j).name == name &&
          (j != rowIndexPosition || keepRowIndex)).get
      }
    }
    (fromRead ++ partitionSchema.indices.map(readSchema.length + _)).toArray
  }

  private val flagVector = new ReusableVector(ByteType, offHeap)

  def markBatch(batch: ColumnarBatch): ColumnarBatch = {
    val n = batch.numRows()
    val flags = flagVector.forRows(n)
    flags.putBytes(0, n, 0.toByte)
    val rowIndexes = batch.column(rowIndexPosition)
    if (n > 0 && deleted.isDefined) {
      val first = rowIndexes.getLong(0)
      val last = rowIndexes.getLong(n - 1)
      lowRows match {
        case Some(bitmap) if last - first == n - 1 && last <= 0xffffffffL =>
          // Contiguous row indexes: visit only the deleted rows of this range.
          val it = bitmap.getIntIterator
          it.advanceIfNeeded(first.toInt)
          while (it.hasNext && (it.peekNext() & 0xffffffffL) <= last) {
            flags.putByte(((it.next() & 0xffffffffL) - first).toInt, 1.toByte)
          }
        case _ =>
          var i = 0
          while (i < n) {
            if (isDeleted(rowIndexes.getLong(i))) flags.putByte(i, 1.toByte)
            i += 1
          }
      }
    }
    val columns: Array[ColumnVector] = sources.map(s => if (s < 0) flags else batch.column(s))
    val out = new ColumnarBatch(columns)
    out.setNumRows(n)
    out
  }

  private lazy val flagRow = new GenericInternalRow(1)
  private lazy val joined = new JoinedRow()
  private lazy val projection = {
    val inputTypes: Seq[DataType] = readSchema.map(_.dataType) ++ partitionSchema.map(_.dataType) :+ ByteType
    val flagIndex = inputTypes.length - 1
    UnsafeProjection.create(sources.toSeq.map { s =>
      val at = if (s < 0) flagIndex else s
      BoundReference(at, inputTypes(at), nullable = true)
    })
  }

  def markRow(row: InternalRow): InternalRow = {
    flagRow.setByte(0, if (isDeleted(row.getLong(rowIndexPosition))) 1.toByte else 0.toByte)
    projection(joined(row, flagRow))
  }

  private val lowRows = deleted.flatMap(_.lowRows)

  private def isDeleted(rowIndex: Long): Boolean = deleted.exists(_.contains(rowIndex))
}

object DeletedRowMarker {
  /** The column a scan of a table with deletion vectors carries: 1 when the row is deleted. */
  val ColumnName = "__silt_row_deleted"
  /** Per-file metadata keys attached to files with a deletion vector. */
  val DescriptorKey = "silt_dv_descriptor"
  val TablePathKey = "silt_table_path"
}
