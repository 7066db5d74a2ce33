package io.silt.read

import org.apache.spark.TaskContext
import org.apache.spark.sql.execution.vectorized.{OffHeapColumnVector, OnHeapColumnVector, WritableColumnVector}
import org.apache.spark.sql.types.DataType

/**
 * A column vector of one type that a reader fills batch after batch: grown when a batch needs
 * more room than it has, and closed when the task ends (off-heap memory is not garbage-collected).
 */
final class ReusableVector(dataType: DataType, offHeap: Boolean) {
  private var vector: WritableColumnVector = _
  private var capacity = 0

  /** The vector, reset, with room for at least `rows` rows. */
  def forRows(rows: Int): WritableColumnVector = {
    if (vector == null || capacity < rows) {
      if (vector != null) vector.close()
      else Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => vector.close()))
      capacity = math.max(rows, 4096)
      vector = if (offHeap) new OffHeapColumnVector(capacity, dataType) else new OnHeapColumnVector(capacity, dataType)
    }
    vector.reset()
    vector
  }
}
