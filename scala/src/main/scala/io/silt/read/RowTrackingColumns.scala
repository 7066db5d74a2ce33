package io.silt.read

import io.silt.actions.AddFile
import io.silt.features.MaterializedRowColumns
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Add, BoundReference, Coalesce, FileSourceConstantMetadataStructField,
  FileSourceGeneratedMetadataStructField, GenericInternalRow, JoinedRow, UnsafeProjection}
import org.apache.spark.sql.execution.datasources.PartitionedFile
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.sources.Filter
import org.apache.spark.sql.types.{LongType, StructField, StructType}

/**
 * Row tracking in scans: `_metadata.row_id` and `_metadata.row_commit_version` (with the files'
 * `base_row_id` and `default_row_commit_version`), as Delta exposes them. Spark reads the hidden
 * column of each (its value where a writer kept one, null elsewhere); the reader then fills the
 * nulls with the file's base id plus the row's index, and the file's commit version.
 */
final case class RowTrackingColumns(columns: MaterializedRowColumns) {
  import RowTrackingColumns._

  /** The `_metadata` fields a table with row tracking adds. */
  def metadataFields: Seq[StructField] = Seq(
    FileSourceGeneratedMetadataStructField(RowId, columns.rowId, LongType, nullable = true),
    FileSourceGeneratedMetadataStructField(RowCommitVersion, columns.rowCommitVersion, LongType, nullable = true),
    FileSourceConstantMetadataStructField(BaseRowId, LongType, nullable = true),
    FileSourceConstantMetadataStructField(DefaultRowCommitVersion, LongType, nullable = true))

  /** Whether a scan of this schema reads a hidden column. */
  def requested(schema: StructType): Boolean = schema.fieldNames.exists(columns.names.contains)

  /**
   * A reader of `required` (then the partition columns) whose hidden columns hold each row's id
   * and commit version, built on `build` (a reader of a schema, given the filters to push down).
   * No filter on a hidden column is pushed to Parquet: its statistics ignore the rows without a
   * kept value, whose ids come from the file.
   */
  def reader(required: StructType, partition: StructType, filters: Seq[Filter],
      build: (StructType, Seq[Filter]) => PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] = {
    val rowIndex = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME
    val readSchema = if (required.fieldNames.contains(rowIndex)) required
                     else required.add(StructField(rowIndex, LongType, nullable = true))
    val read = build(readSchema, filters.filterNot(_.references.exists(r => columns.names.exists(n => r == n || r.startsWith(n + ".")))))
    val (n, p) = (readSchema.length, partition.length)
    def ref(i: Int, f: StructField) = BoundReference(i, f.dataType, nullable = true)
    val indexRef = BoundReference(readSchema.fieldIndex(rowIndex), LongType, nullable = true)
    val (baseRef, versionRef) = (BoundReference(n + p, LongType, nullable = true), BoundReference(n + p + 1, LongType, nullable = true))
    val outputs = required.fields.toSeq.zipWithIndex.map {
      case (f, i) if f.name == columns.rowId => Coalesce(Seq(ref(i, f), Add(baseRef, indexRef)))
      case (f, i) if f.name == columns.rowCommitVersion => Coalesce(Seq(ref(i, f), versionRef))
      case (f, i) => ref(i, f)
    } ++ partition.fields.toSeq.zipWithIndex.map { case (f, k) => ref(n + k, f) }
    (file: PartitionedFile) => {
      val projection = UnsafeProjection.create(outputs)
      val values = file.otherConstantMetadataColumnValues
      val constants = new GenericInternalRow(Array[Any](values.get(BaseRowId).orNull, values.get(DefaultRowCommitVersion).orNull))
      val joined = new JoinedRow()
      read(file).map(row => projection(joined(row, constants)))
    }
  }
}

object RowTrackingColumns {
  val RowId = "row_id"
  val RowCommitVersion = "row_commit_version"
  val BaseRowId = "base_row_id"
  val DefaultRowCommitVersion = "default_row_commit_version"

  /** What a file hands its reader for these fields: its base id and commit version, when it has them. */
  def constantsOf(a: AddFile): Seq[(String, Any)] =
    a.baseRowId.map(BaseRowId -> (_: Long)).toSeq ++ a.defaultRowCommitVersion.map(DefaultRowCommitVersion -> (_: Long))
}
