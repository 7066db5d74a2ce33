package io.silt.expressions

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{LeafExpression, Nondeterministic, Unevaluable}
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{DataType, LongType}
import org.apache.spark.util.AccumulatorV2

/**
 * Stands for the value an identity column gets in a row being written; the writer replaces it by
 * an [[IdentityValue]] from the definition in the metadata it commits.
 */
final case class IdentityPlaceholder(column: String) extends LeafExpression with Unevaluable {
  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def prettyName: String = "identity"
  override def sql: String = s"identity($column)"
}

/** The last identity value the tasks of a write generated, in the step's direction (None: none). */
final class IdentityMark(val step: Long) extends AccumulatorV2[Long, Option[Long]] {
  // primitives: each generated value is added
  private var any = false
  private var last = 0L
  override def isZero: Boolean = !any
  override def copy(): IdentityMark = { val c = new IdentityMark(step); c.any = any; c.last = last; c }
  override def reset(): Unit = any = false
  override def add(v: Long): Unit = {
    if (!any || (step > 0 && v > last) || (step < 0 && v < last)) last = v
    any = true
  }
  override def merge(other: AccumulatorV2[Long, Option[Long]]): Unit = other.value.foreach(add)
  override def value: Option[Long] = if (any) Some(last) else None
}

/**
 * Identity values, unique across the tasks of a write: task `p` of the `n` of its stage generates
 * `first + p * step`, then steps by `n * step` (Delta's scheme); overflow fails the write. The
 * task's own partition id is used, not the index a projection is given, which restarts from 0 in
 * each input of a union. Every value goes to `mark`, which keeps the last.
 */
final case class IdentityValue(first: Long, step: Long, mark: IdentityMark)
    extends LeafExpression with Nondeterministic with CodegenFallback {
  @transient private var started = false
  @transient private var next: Long = _
  @transient private var increment: Long = _

  // Spark may evaluate a projection of literal rows on the driver (no task): one partition then.
  override protected def initializeInternal(partitionIndex: Int): Unit = if (!started) {
    started = true
    val task = Option(TaskContext.get())
    next = Math.addExact(first, Math.multiplyExact(task.map(_.partitionId()).getOrElse(partitionIndex).toLong, step))
    increment = Math.multiplyExact(task.map(_.numPartitions()).getOrElse(1).toLong, step)
  }

  override protected def evalInternal(input: InternalRow): Any = {
    val v = next
    next = Math.addExact(next, increment)
    mark.add(v)
    v
  }

  override def dataType: DataType = LongType
  override def nullable: Boolean = false
  override def prettyName: String = "identity"
}
