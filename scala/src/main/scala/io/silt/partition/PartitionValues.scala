package io.silt.partition

import io.silt.actions.AddFile
import io.silt.features.ColumnMapping
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, EqualTo, Expression, If, Literal}
import org.apache.spark.sql.types.{DataType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * The one decoder of the log's partition values (strings) into typed values: an empty string is
 * null for every type but STRING, and a value that does not cast is null in a checkpoint's typed
 * column and an error where a reader needs the value.
 */
object PartitionValues {

  /** The typed value of a partition value string `raw` (an expression of type STRING). */
  def decode(raw: Expression, dataType: DataType, timeZone: String): Expression = dataType match {
    case StringType => raw
    case _ => If(EqualTo(raw, Literal("")), Literal(null, dataType),
      Cast(raw, dataType, Some(timeZone), evalMode = EvalMode.TRY))
  }

  /** A partition value string of the log as Spark's internal value of `dataType`. */
  def parse(raw: String, dataType: DataType, timeZone: String): Any = {
    if (raw == null) return null
    val v = decode(Literal(UTF8String.fromString(raw)), dataType, timeZone).eval()
    if (v == null && raw.nonEmpty) {
      throw new IllegalArgumentException(s"partition value '$raw' is not a valid ${dataType.simpleString}")
    }
    v
  }

  /**
   * The typed partition values of a file as a row of `partitionSchema`, the table's (its fields'
   * physical names are the keys under column mapping; matched case-insensitively).
   */
  def rowOf(add: AddFile, partitionSchema: StructType, timeZone: String): InternalRow =
    rowOf(add.partitionValues, partitionSchema, timeZone)

  /** The row of a file's raw partition values (keyed by physical name), as [[rowOf]] of its add. */
  def rowOf(partitionValues: Map[String, String], partitionSchema: StructType, timeZone: String): InternalRow = {
    val values = partitionSchema.fields.map { f =>
      val key = ColumnMapping.physicalName(f)
      val raw = partitionValues.find(_._1.equalsIgnoreCase(key)).map(_._2).orNull
      parse(raw, f.dataType, timeZone)
    }
    InternalRow.fromSeq(values.toSeq)
  }
}
