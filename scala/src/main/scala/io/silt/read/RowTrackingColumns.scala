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
import org.apache.spark.sql.vectorized.{ColumnVector, ColumnarBatch}

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
  def reader(required: StructType, partition: StructType, filters: Seq[Filter], batches: Boolean, offHeap: Boolean,
      build: (StructType, Seq[Filter]) => PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] = {
    val rowIndex = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME
    val readSchema = if (required.fieldNames.contains(rowIndex)) required
                     else required.add(StructField(rowIndex, LongType, nullable = true))
    // Spark quotes a name with dashes in a pushed filter's references.
    val hidden = (r: String) => columns.names.contains(r.stripPrefix("`").stripSuffix("`"))
    val read = build(readSchema, filters.filterNot(_.references.exists(hidden)))
    if (batches) batchReader(required, readSchema, partition.length, offHeap, read) else rowReader(required, readSchema, partition, read)
  }

  /** Rows: a projection fills the hidden columns' nulls from the file's constants. */
  private def rowReader(required: StructType, readSchema: StructType, partition: StructType,
      read: PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] = {
    val rowIndex = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME
    val (n, p) = (readSchema.length, partition.length)
    def ref(i: Int, f: StructField) = BoundReference(i, f.dataType, nullable = true)
    val indexRef = BoundReference(readSchema.fieldIndex(rowIndex), LongType, nullable = true)
    val baseRef = BoundReference(n + p, LongType, nullable = true)
    val versionRef = BoundReference(n + p + 1, LongType, nullable = true)
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

  /**
   * Batches (the reader hands them out through its row iterator): the hidden columns' vectors are
   * replaced by filled copies, and the row index column dropped when it was added.
   */
  private def batchReader(required: StructType, readSchema: StructType, partitions: Int, offHeap: Boolean,
      read: PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] = {
    val index = readSchema.fieldIndex(ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME)
    val kept = required.indices ++ (readSchema.length until readSchema.length + partitions)
    val filled = required.fields.toSeq.zipWithIndex.collect {
      case (f, i) if f.name == columns.rowId => i -> true
      case (f, i) if f.name == columns.rowCommitVersion => i -> false
    }.toMap
    (file: PartitionedFile) => {
      val values = file.otherConstantMetadataColumnValues
      val base = values.get(BaseRowId).map(_.asInstanceOf[Long])
      val version = values.get(DefaultRowCommitVersion).map(_.asInstanceOf[Long])
      val vectors = filled.map { case (i, _) => i -> new ReusableVector(LongType, offHeap) }
      read(file).asInstanceOf[Iterator[AnyRef]].map {
        case batch: ColumnarBatch =>
          val rows = batch.numRows()
          val out = kept.map { i =>
            filled.get(i) match {
              case Some(isId) =>
                val (stored, fill) = (batch.column(i), vectors(i).forRows(rows))
                val rowIndexes = batch.column(index)
                var r = 0
                while (r < rows) {
                  if (!stored.isNullAt(r)) fill.putLong(r, stored.getLong(r))
                  else if (isId && base.isDefined) fill.putLong(r, base.get + rowIndexes.getLong(r))
                  else if (!isId && version.isDefined) fill.putLong(r, version.get)
                  else fill.putNull(r)
                  r += 1
                }
                fill: ColumnVector
              case None => batch.column(i)
            }
          }
          new ColumnarBatch(out.toArray, rows)
        case other => throw new IllegalStateException(s"the Parquet reader returned a ${other.getClass.getName}, not a batch")
      }.asInstanceOf[Iterator[InternalRow]]
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
