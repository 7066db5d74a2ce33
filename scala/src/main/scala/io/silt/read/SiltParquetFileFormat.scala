package io.silt.read

import io.silt.dv.{DeletionVectorDescriptor, DeletionVectorStore}
import io.silt.errors.MissingDataFileException
import io.silt.features.{ColumnMapping, ColumnMappingMode}
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
 * the legacy INT96) so that every Delta reader reads them; reads drop the deleted rows of files
 * with deletion vectors (see [[DeletedRowFilter]]), count the row indexes of files read whole
 * (see [[RowIndexCounter]]), and skip Parquet's vectored reads on the local file system.
 * `wholeFiles`: each file is read by one task, never split (so a task sees all the rows of the
 * files it reads). `files`: what the driver knows of the files a scan may read, asked when a
 * reader is built. `mapping`: the table's column mapping; Spark asks for logical columns, the
 * files are read by their physical names (and, in `id` mode, Parquet field ids).
 */
class SiltParquetFileFormat(val wholeFiles: Boolean = false, @transient files: () => ScanFiles = () => ScanFiles.Unknown,
    val mapping: ColumnMapping = ColumnMapping.Disabled, val rowTracking: Option[RowTrackingColumns] = None)
    extends ParquetFileFormat {

  override def metadataSchemaFields: Seq[StructField] = super.metadataSchemaFields ++ rowTracking.toSeq.flatMap(_.metadataFields)

  @transient private lazy val scanFiles: ScanFiles = Option(files).fold(ScanFiles.Unknown)(_())

  override def isSplitable(spark: SparkSession, options: Map[String, String], path: Path): Boolean =
    !wholeFiles && super.isSplitable(spark, options, path)

  override def prepareWrite(spark: SparkSession, job: Job, options: Map[String, String], dataSchema: StructType): OutputWriterFactory = {
    val factory = super.prepareWrite(spark, job, options, dataSchema)
    job.getConfiguration.set(SQLConf.PARQUET_OUTPUT_TIMESTAMP_TYPE.key, "TIMESTAMP_MICROS")
    if (dataSchema.exists(_.metadata.contains(ColumnMapping.ParquetNestedIdsKey))) {
      job.getConfiguration.set(org.apache.parquet.hadoop.ParquetOutputFormat.WRITE_SUPPORT_CLASS,
        classOf[FieldIdWriteSupport].getName)
    }
    factory
  }

  /** `options` with the reader's calendar modes where neither they nor the session set them (see CalendarModes). */
  private def withCalendarModes(spark: SparkSession, options: Map[String, String]): Map[String, String] =
    options ++ SiltParquetFileFormat.CalendarModes.collect {
      case (option, setting) if !options.contains(option) && !SiltParquetFileFormat.isSet(spark, setting.read) =>
        option -> SiltParquetFileFormat.ProlepticGregorian
    }

  /** Batches only of columns whose deleted rows [[BatchCompaction]] can drop; rows otherwise. */
  override def supportBatch(spark: SparkSession, schema: StructType): Boolean =
    super.supportBatch(spark, schema) && (!scanFiles.withDeletionVectors || schema.forall(f => BatchCompaction.supports(f.dataType)))

  override def buildReaderWithPartitionValues(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      givenOptions: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    val options = withCalendarModes(spark, givenOptions)
    rowTracking.filter(_.requested(requiredSchema)) match {
      case Some(tracking) =>
        val batches = spark.sessionState.conf.parquetVectorizedReaderEnabled &&
          options.get(FileFormat.OPTION_RETURNING_BATCH).contains("true")
        tracking.reader(requiredSchema, partitionSchema, filters, batches, spark.sessionState.conf.offHeapColumnVectorEnabled,
          (schema, pushed) => mappedReader(spark, dataSchema, partitionSchema, schema, pushed, options, hadoopConf))
      case None => mappedReader(spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
    }
  }

  private def mappedReader(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    if (mapping.enabled) {
      if (mapping.mode == ColumnMappingMode.Id) hadoopConf.setBoolean(SQLConf.PARQUET_FIELD_ID_READ_ENABLED.key, true)
      return physicalReader(spark, mapping.physicalSchema(dataSchema), partitionSchema, mapping.physicalSchema(requiredSchema),
        PhysicalFilters(filters, mapping), options, hadoopConf)
    }
    physicalReader(spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf)
  }

  private def physicalReader(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration): PartitionedFile => Iterator[InternalRow] = {
    if (!scanFiles.withDeletionVectors) {
      return namingMissingFiles(readerCountingRows(spark, dataSchema, partitionSchema, requiredSchema, filters, options, hadoopConf))
    }
    val keepRowIndex = requiredSchema.fieldNames.contains(rowIndexName)
    val readSchema = if (keepRowIndex) requiredSchema else requiredSchema.add(StructField(rowIndexName, LongType, nullable = true))
    val rowIndexPosition = readSchema.fieldNames.indexOf(rowIndexName)
    // Broadcast, as Spark does for its reader: in the closure, every task would deserialize it.
    val conf = spark.sparkContext.broadcast(new SerializableConfiguration(hadoopConf))
    val filterFor = (file: PartitionedFile) => {
      def load(key: String) = file.otherConstantMetadataColumnValues.get(key).map { d =>
        val tablePath = new Path(file.otherConstantMetadataColumnValues(DeletedRowFilter.TablePathKey).toString)
        DeletionVectorStore.load(d.asInstanceOf[DeletionVectorDescriptor], tablePath, file.filePath.toString, conf.value.value)
      }
      new DeletedRowFilter(load(DeletedRowFilter.DescriptorKey), load(DeletedRowFilter.KeepOnlyKey), readSchema,
        rowIndexPosition, keepRowIndex, partitionSchema)
    }
    namingMissingFiles(readerCountingRows(spark, dataSchema, partitionSchema, readSchema, filters, options, hadoopConf,
      Some(filterFor)))
  }

  /**
   * Spark's Parquet reader, except that when it returns batches and pushes no filter down, the
   * row index column of files read whole is counted by [[RowIndexCounter]] instead of Spark's
   * generator. Split files, and reads whose pushed filters may skip rows, keep Spark's; the
   * reader for split files is built only when a file may be split (each build broadcasts the
   * configuration).
   * `deletedRows`: the filter of each file's deleted rows, applied in the same iterator (the JIT
   * inlines less of Parquet's decoding under each iterator layer added above it).
   */
  private def readerCountingRows(
      spark: SparkSession,
      dataSchema: StructType,
      partitionSchema: StructType,
      requiredSchema: StructType,
      filters: Seq[Filter],
      options: Map[String, String],
      hadoopConf: Configuration,
      deletedRows: Option[PartitionedFile => DeletedRowFilter] = None): PartitionedFile => Iterator[InternalRow] = {
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
    // The reader hands out ColumnarBatches through its Iterator[InternalRow] when it returns batches.
    def withStep(read: PartitionedFile => Iterator[InternalRow]) = deletedRows.fold(read) { filterFor =>
      (file: PartitionedFile) => {
        val filter = filterFor(file)
        if (!batches) filter.filterRows(read(file))
        else read(file).asInstanceOf[Iterator[AnyRef]].map {
          case batch: ColumnarBatch => filter.filterBatch(batch)
          case other => throw new IllegalStateException(s"the Parquet reader returned a ${other.getClass.getName}, not a batch")
        }.asInstanceOf[Iterator[InternalRow]]
      }
    }
    if (position < 0 || !batches || maySkipRows) return withStep(sparks)
    val withoutIndex = StructType(requiredSchema.filterNot(_.name == rowIndexName))
    val counted = super.buildReaderWithPartitionValues(spark, dataSchema, partitionSchema, withoutIndex, Nil, options,
      readerConf(hadoopConf, options))
    val whole = wholeFiles
    val maySplit = !whole && scanFiles.largest > SiltParquetFileFormat.smallestSplit(conf)
    val splitReader = if (maySplit) Some(withStep(sparks)) else None
    val offHeap = conf.offHeapColumnVectorEnabled
    (file: PartitionedFile) =>
      if (whole || (file.start == 0 && file.length == file.fileSize)) {
        val counter = new RowIndexCounter(position, offHeap)
        val read = counted(file).asInstanceOf[Iterator[ColumnarBatch]]
        (deletedRows match {
          case Some(filterFor) =>
            val filter = filterFor(file)
            read.map(b => filter.filterBatch(counter.addTo(b)))
          case None => read.map(counter.addTo)
        }).asInstanceOf[Iterator[InternalRow]]
      } else {
        splitReader.getOrElse(throw new IllegalStateException(
          s"${file.filePath} was split, though no file of the scan is larger than Spark's smallest split"))(file)
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
    case o: SiltParquetFileFormat => o.wholeFiles == wholeFiles && o.mapping == mapping && o.rowTracking == rowTracking
    case _ => false
  }
  override def hashCode(): Int = (getClass, wholeFiles, mapping.mode, rowTracking).hashCode()
}

/**
 * What a reader is built knowing of the files a scan may read: the size of the largest (a bound
 * is enough), and whether any carries a deletion vector.
 */
final case class ScanFiles(largest: Long, withDeletionVectors: Boolean)

object ScanFiles {
  /** Assumes the worst: files may be split and may have deletion vectors. */
  val Unknown: ScanFiles = ScanFiles(Long.MaxValue, withDeletionVectors = true)
}

object SiltParquetFileFormat {
  /** parquet-hadoop's switch for vectored reads. */
  val VectoredReads = "parquet.hadoop.vectored.io.enabled"

  /**
   * Spark splits a file only above its split size, min(maxPartitionBytes, max(openCostInBytes,
   * bytes per core)) (`FilePartition.maxSplitBytes`), which is never below this.
   */
  def smallestSplit(conf: SQLConf): Long = math.min(conf.filesMaxPartitionBytes, conf.filesOpenCostInBytes)

  /**
   * The session settings of one calendar mode: how values are rebased when read and when written, each
   * as its keys (the key, then its former ones: `spark.sql.legacy.…`).
   */
  final case class CalendarSetting(read: Seq[String], write: Seq[String])

  private def isSet(spark: SparkSession, keys: Seq[String]): Boolean = keys.exists(spark.sessionState.conf.contains)

  /**
   * Delta's dates and timestamps are proleptic Gregorian: values before 1582 are read and written as they are,
   * which is Spark 4's default. Spark 3.5's refuses them (EXCEPTION); a session that sets a mode keeps its own.
   * Each reader option with its session settings.
   */
  val CalendarModes: Seq[(String, CalendarSetting)] = Seq(
    "datetimeRebaseMode" -> CalendarSetting(
      SQLConf.PARQUET_REBASE_MODE_IN_READ.key +: SQLConf.PARQUET_REBASE_MODE_IN_READ.alternatives,
      SQLConf.PARQUET_REBASE_MODE_IN_WRITE.key +: SQLConf.PARQUET_REBASE_MODE_IN_WRITE.alternatives),
    "int96RebaseMode" -> CalendarSetting(
      SQLConf.PARQUET_INT96_REBASE_MODE_IN_READ.key +: SQLConf.PARQUET_INT96_REBASE_MODE_IN_READ.alternatives,
      SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE.key +: SQLConf.PARQUET_INT96_REBASE_MODE_IN_WRITE.alternatives))

  val ProlepticGregorian = "CORRECTED"

  /**
   * Runs `write` (a job that writes data files) with the calendar modes the session does not set. Spark's
   * Parquet writer reads them from the session's settings as its tasks see them, the job's local properties.
   */
  def withCalendarModes[T](spark: SparkSession)(write: => T): T = {
    val context = spark.sparkContext
    val unset = CalendarModes.map(_._2.write).filterNot(isSet(spark, _)).map(_.head)
    val before = unset.map(k => k -> context.getLocalProperty(k))
    unset.foreach(context.setLocalProperty(_, ProlepticGregorian))
    try write finally before.foreach { case (k, v) => context.setLocalProperty(k, v) }
  }
}
