package io.silt.read

import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorStore}
import io.silt.errors.MissingDataFileException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.Job
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FileFormat, OutputWriterFactory, PartitionedFile}
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.sources.{Filter, IsNotNull}
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.apache.spark.sql.vectorized.ColumnarBatch
import org.apache.spark.util.SerializableConfiguration

/**
 * Spark's Parquet format with these additions: writes keep timestamps as INT64 microseconds (not
 * the legacy INT96) so that every Delta reader reads them; reads fill the deleted-row flag of
 * files with deletion vectors (see [[DeletedRowMarker]]), count the row indexes of files read
 * whole (see [[RowIndexCounter]]), and skip Parquet's vectored reads on the local file system.
 * `wholeFiles`: each file is read by one task, never split (so a task sees all the rows of the
 * files it reads).
 */
class SiltParquetFileFormat(val wholeFiles: Boolean = false) extends ParquetFileFormat {

  override def isSplitable(spark: SparkSession, options: Map[String, String], path: Path): Boolean =
    !wholeFiles && super.isSplitable(spark, options, path)

  override def prepareWrite(spark: SparkSession, job: Job, options: Map[String, String], dataSchema: StructType): OutputWriterFactory = {
    val factory = super.prepareWrite(spark, job, options, dataSchema)
    job.getConfiguration.set(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key, "TIMESTAMP_MICROS")
    factory
  }

  override def buildReaderWithPartitionValues(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val flagPosition = requiredSchema.fieldNames.indexOf(DeletedRowMarker.ColumnName)
    if (flagPosition < 0) {
      return namingMissingFiles(readerCountingRows(spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf))
    }
    val withoutFlag = StructType(requiredSchema.filterNot(_.name == DeletedRowMarker.ColumnName))
    val keepRowIndex = withoutFlag.fieldNames.contains(rowIndexName)
    val readSchema = if (keepRowIndex) withoutFlag else withoutFlag.add(StructField(rowIndexName, LongType, nullable = true))
    val rowIndexPosition = readSchema.fieldNames.indexOf(rowIndexName)
    val readDataSchema = StructType(dataSchema.filterNot(_.name == DeletedRowMarker.ColumnName))
    val usable = filters.filterNot(_.references.contains(DeletedRowMarker.ColumnName))
    val conf = new SerializableConfiguration(hadoopConf)
    val offHeap = spark.sessionState.conf.offHeapColumnVectorEnabled

    val marking = (file: PartitionedFile) => {
      val deleted = file.otherConstantMetadataColumnValues.get(DeletedRowMarker.DescriptorKey).map { d =>
        val tablePath = new Path(file.otherConstantMetadataColumnValues(DeletedRowMarker.TablePathKey).toString)
        DeletionVectorStore.load(d.asInstanceOf[DeletionVectorDescriptor], tablePath, file.filePath.toString, conf.value)
      }
      val marker = new DeletedRowMarker(deleted, readSchema, rowIndexPosition, keepRowIndex, requiredSchema,
        flagPosition, partitionSchema, offHeap)
      // The reader hands out ColumnarBatches through its Iterator[InternalRow] when vectorized.
      (read: AnyRef) => read match {
        case batch: ColumnarBatch => marker.markBatch(batch)
        case row: InternalRow => marker.markRow(row)
        case other => throw new IllegalStateException(s"the Parquet reader returned a ${other.getClass.getName}")
      }
    }
    namingMissingFiles(readerCountingRows(spark, readDataSchema, partitionSchema, readSchema, usable, options, hadoopConf,
      Some(marking)))
  }

  /**
   * Spark's Parquet reader, except that when it returns batches and pushes no filter down, the
   * row index column of files read whole is counted by [[RowIndexCounter]] instead of Spark's
   * generator. Split files, and reads whose pushed filters may skip rows, keep Spark's.
   * `andThen`: a per-file step applied to each batch or row after that, in the same iterator
   * (the JIT inlines less of Parquet's decoding under each iterator layer added above it).
   */
  private def readerCountingRows(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration,
      andThen: Option[PartitionedFile => AnyRef => AnyRef] = None): PartitionedFile => Iterator[InternalRow] = {
    val conf = spark.sessionState.conf
    val position = requiredSchema.fieldNames.indexOf(rowIndexName)
    val batches = conf.parquetVectorizedReaderEnabled && options.get(FileFormat.OPTION_RETURNING_BATCH).contains("true")
    // Spark infers an IsNotNull for the columns of most conditions. It can skip only all-null row
    // groups, and Spark filters the rows again anyway, so it is dropped rather than kept at the
    // price of Spark's generator.
    val pushed = filters.filterNot(_.isInstanceOf[IsNotNull])
    val maySkipRows = pushed.nonEmpty && conf.parquetFilterPushDown
    def sparks = super.buildReaderWithPartitionValues(spark, dataSchema, partitionSchema, requiredSchema, filters, options,
      readerConf(hadoopConf, options))
    def withStep(read: PartitionedFile => Iterator[InternalRow]) = andThen.fold(read) { step =>
      (file: PartitionedFile) => read(file).asInstanceOf[Iterator[AnyRef]].map(step(file)).asInstanceOf[Iterator[InternalRow]]
    }
    if (position < 0 || !batches || maySkipRows) return withStep(sparks)
    val withoutIndex = StructType(requiredSchema.filterNot(_.name == rowIndexName))
    val counted = super.buildReaderWithPartitionValues(spark, dataSchema, partitionSchema, withoutIndex, Nil, options,
      readerConf(hadoopConf, options))
    val splitReader = if (wholeFiles) None else Some(withStep(sparks))
    val offHeap = conf.offHeapColumnVectorEnabled
    (file: PartitionedFile) =>
      if (file.start == 0 && (wholeFiles || file.length == file.fileSize)) {
        val counter = new RowIndexCounter(position, offHeap)
        val step = andThen.map(_(file)).getOrElse((b: AnyRef) => b)
        counted(file).asInstanceOf[Iterator[ColumnarBatch]].map(b => step(counter.addTo(b))).asInstanceOf[Iterator[InternalRow]]
      } else {
        splitReader.getOrElse(throw new IllegalStateException(s"${file.filePath} was split, though read as whole files"))(file)
      }
  }

  private def rowIndexName = ParquetFileFormat.ROW_INDEX_TEMPORARY_COLUMN_NAME

  /**
   * A reader's own copy of the configuration (Spark's reader sets the read schema in the one it
   * is given). On the local file system, Parquet's vectored reads only hand every read to another
   * thread and back (DELETE with DVs 15-20% slower, scans ~5%), so they are off there unless the
   * user set `parquet.hadoop.vectored.io.enabled`.
   */
  private def readerConf(hadoopConf: Configuration, options: Map[String, String]): Configuration = {
    val conf = new Configuration(hadoopConf)
    val local = options.get("path").exists(p => new Path(p).getFileSystem(hadoopConf).getUri.getScheme == "file")
    if (local && conf.get(SiltParquetFileFormat.VectoredReads) == null) conf.setBoolean(SiltParquetFileFormat.VectoredReads, false)
    conf
  }

  /** A file the log lists but the disk lacks is a typed error naming it, not Spark's generic one. */
  private def namingMissingFiles(read: PartitionedFile => Iterator[InternalRow]): PartitionedFile => Iterator[InternalRow] =
    (file: PartitionedFile) => try read(file) catch {
      case e: java.io.FileNotFoundException => throw new MissingDataFileException(file.filePath.toString, e)
    }

  override def toString: String = "Parquet"
  override def equals(other: Any): Boolean = other match {
    case o: SiltParquetFileFormat => o.wholeFiles == wholeFiles
    case _ => false
  }
  override def hashCode(): Int = (getClass, wholeFiles).hashCode()
}

object SiltParquetFileFormat {
  /** parquet-hadoop's switch for vectored reads. */
  val VectoredReads = "parquet.hadoop.vectored.io.enabled"
}
