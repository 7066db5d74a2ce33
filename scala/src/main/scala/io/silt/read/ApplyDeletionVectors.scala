package io.silt.read

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, EqualTo, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}
import org.apache.spark.sql.types.ByteType

/**
 * Makes scans of Silt tables whose files carry deletion vectors drop the deleted rows: the
 * relation gains the `__silt_row_deleted` column that [[SiltParquetFileFormat]] fills, and a
 * filter keeps the rows where it is 0. Tables without deletion vectors are left as they are.
 */
object ApplyDeletionVectors extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.transformUp {
    case l @ LogicalRelation(fs: HadoopFsRelation, output, _, _, _) if needsFilter(fs) =>
      val flag = AttributeReference(DeletedRowMarker.ColumnName, ByteType, nullable = false)()
      val relation = fs.copy(dataSchema = fs.dataSchema.add(DeletedRowMarker.ColumnName, ByteType, nullable = false))(fs.sparkSession)
      val (metadata, columns) = output.partition(_.metadata.contains("__metadata_col"))
      val scan = l.copy(relation = relation, output = (columns :+ flag) ++ metadata)
      Project(output, Filter(EqualTo(flag, Literal(0.toByte)), scan))
  }

  private def needsFilter(fs: HadoopFsRelation): Boolean = fs.location match {
    case index: SiltFileIndex =>
      index.files.exists(_.deletionVector.isDefined) && !fs.dataSchema.fieldNames.contains(DeletedRowMarker.ColumnName)
    case _ => false
  }
}
