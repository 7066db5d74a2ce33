package io.silt.write

import java.util.UUID

import scala.util.control.NonFatal

import io.silt.config.{SiltSettings, TableFileSystem}
import io.silt.errors.SiltException
import io.silt.actions.{AddFile, Metadata, TablePaths}
import io.silt.features.{ColumnMapping, IcebergCompat, TableProperties}
import io.silt.spark.Identifiers
import io.silt.partition.PartitionValues
import io.silt.read.SiltParquetFileFormat
import io.silt.stats.{StatsColumn, StatsJobTracker}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.execution.datasources.FileFormatWriter
import org.apache.spark.sql.types.{StructField, StructType, TimestampType}

/**
 * Writes a DataFrame as Parquet data files under the table root with Spark's file writer,
 * partitioned as the table is, and returns their add actions with statistics gathered while
 * writing. Nothing is committed here.
 */
object DataFileWriter {

  /**
   * `options`: Spark file-writer options (maxRecordsPerFile, compression); `enforceConstraints`:
   * check the table's NOT NULL, CHECK and invariant rules on every row (a rewrite of rows already
   * in the table, such as OPTIMIZE, need not); `optimizeWrite`: shuffle the rows first ([[OptimizedWrite]]).
   */
  def write(spark: SparkSession, tablePath: Path, data: DataFrame, metadata: Metadata,
      options: Map[String, String] = Map.empty, enforceConstraints: Boolean = true,
      optimizeWrite: Boolean = false): Seq[AddFile] = {
    val compat = TableProperties(metadata.configuration).icebergCompatVersion
    val added = writeFiles(spark, tablePath, if (optimizeWrite) OptimizedWrite.shuffle(spark, data, metadata) else data,
        metadata, options, enforceConstraints, materializePartitions = compat.isDefined).map { case (f, stats) =>
      AddFile(
        path = TablePaths.relativeEncoded(f.relativePath),
        partitionValues = f.partitionValues,
        size = f.size,
        modificationTime = f.modificationTime,
        dataChange = true,
        stats = stats,
        tags = compat.map(v => IcebergCompat.FileTag -> v.toString).toMap)
    }
    // Spark writes one file without rows when a job has none (a DELETE of a whole file's rows, a
    // write of nothing): as in Delta Lake, it is no part of the table, and is deleted at once.
    val (empty, rows) = added.partition(_.numPhysicalRecords.contains(0L))
    deleteQuietly(spark, tablePath, empty)
    rows
  }

  /** The names of the copies of partition columns that name a materialized write's folders. */
  private val PartitionCopyPrefix = "__silt_partition_"

  /** Deletes written files no commit refers to (best effort: VACUUM removes any left). */
  def deleteQuietly(spark: SparkSession, tablePath: Path, files: Seq[AddFile]): Unit = if (files.nonEmpty) {
    val fs = tablePath.getFileSystem(TableFileSystem.hadoopConf(spark, tablePath))
    files.foreach(a => scala.util.Try(fs.delete(TablePaths.absolute(tablePath, a.path), false)))
  }

  /**
   * Writes `data` as Parquet files under `tablePath`/`folder` (the table's own files: no folder),
   * partitioned as the table is; each file with its partition values keyed as the log keys them,
   * its path relative to the table root and its statistics (None when `collectStats` is off).
   */
  private[write] def writeFiles(spark: SparkSession, tablePath: Path, data: DataFrame, metadata: Metadata,
      options: Map[String, String], enforceConstraints: Boolean, folder: String = "",
      collectStats: Boolean = true, materializePartitions: Boolean = false): Seq[(WrittenFile, Option[String])] = {
    val constrained = if (enforceConstraints) Constraints.enforce(spark, data, metadata) else data
    val partitionNames = if (!materializePartitions) Nil else metadata.partitionColumns.map(c =>
      constrained.columns.find(_.equalsIgnoreCase(c)).getOrElse(
        throw new IllegalStateException(s"partition column $c is missing from the data")))
    // Materialized, the partition columns stay in the files, after the other columns (icebergCompat); copies of
    // them, which Spark's writer leaves out of the files, name the folders.
    val copies = partitionNames.indices.map(i => s"$PartitionCopyPrefix$i")
    val checked = if (copies.isEmpty) constrained else {
      val others = constrained.columns.toSeq.filterNot(partitionNames.contains)
      constrained.select((others ++ partitionNames).map(Identifiers.column) ++
        partitionNames.zip(copies).map { case (p, c) => Identifiers.column(p).as(c) }: _*)
    }
    val qe = checked.queryExecution
    val mapping = ColumnMapping.of(metadata)
    // Under column mapping, the files hold physical names (and field ids): the same attributes
    // (same ids, so Spark binds them to the plan), renamed.
    val output = qe.analyzed.output.map { a =>
      val copyOf = copies.indexOf(a.name)
      val physical = if (copyOf >= 0) StructField(mapping.partitionKey(partitionNames(copyOf)), a.dataType)
        else mapping.physicalWriteSchema(StructType(Seq(StructField(a.name, a.dataType, a.nullable, a.metadata)))).head
      if (physical.name == a.name && physical.dataType == a.dataType && physical.metadata == a.metadata) a
      else a.withName(physical.name).withDataType(physical.dataType).withMetadata(physical.metadata)
    }
    val partitionAttrs = if (copies.nonEmpty) output.takeRight(copies.size) else metadata.partitionColumns.map { c =>
      output.find(_.name.equalsIgnoreCase(mapping.partitionKey(c))).getOrElse(
        throw new IllegalStateException(s"partition column $c is missing from the data"))
    }
    val logicalData = qe.analyzed.output.filterNot(a => partitionAttrs.exists(_.exprId == a.exprId))
    val dataSchema = StructType(logicalData.map(a => metadata.schema.find(_.name.equalsIgnoreCase(a.name))
      .getOrElse(StructField(a.name, a.dataType)).copy(name = a.name, dataType = a.dataType)))
    val hidden = RowTrackingWrites.hiddenNames(metadata)
    // Statistics are of the data columns (a materialized partition column, last in the files, has none, as in Delta).
    val statsSchema = StructType(dataSchema.filterNot(f => hidden(f.name) || partitionNames.contains(f.name)))
    val statsTracker = new StatsJobTracker(if (collectStats) StatsColumn.forTable(statsSchema, metadata).toIndexedSeq
      else IndexedSeq.empty)
    val root = if (folder.isEmpty) tablePath else new Path(tablePath, folder)
    val committer = new SiltCommitProtocol(UUID.randomUUID().toString, root.toString)
    val hadoopConf = TableFileSystem.hadoopConf(spark, tablePath)
    try SiltParquetFileFormat.withCalendarModes(spark) {
      FileFormatWriterCall.write(spark, qe.executedPlan, new SiltParquetFileFormat, committer,
        FileFormatWriter.OutputSpec(root.toString, Map.empty, output), hadoopConf, partitionAttrs, Seq(statsTracker), options)
    } catch {
      // a constraint violated in a task: the typed error, not Spark's job failure around it
      case NonFatal(e) => throw SiltException.rootOf(e).getOrElse(e)
    }
    // Spark names a timestamp partition's folder in the session's zone; Delta Lake writes the instant in UTC.
    val zone = spark.sessionState.conf.sessionLocalTimeZone
    val utc = metadata.partitionSchema.fields.filter(_.dataType == TimestampType).map(f => mapping.partitionKey(f.name))
      .filter(_ => SiltSettings.UtcTimestampPartitionValues(spark)).map(_.toLowerCase).toSet
    committer.writtenFiles.map { f =>
      val keyed = metadata.partitionColumns.map(c => mapping.partitionKey(c)).map { k =>
        val raw = f.partitionValues.find(_._1.equalsIgnoreCase(k)).map(_._2).orNull
        k -> (if (utc(k.toLowerCase)) PartitionValues.utcTimestamp(raw, zone) else raw)
      }.toMap
      val relative = if (folder.isEmpty) f.relativePath else s"$folder/${f.relativePath}"
      (f.copy(relativePath = relative, partitionValues = keyed),
        if (collectStats) statsTracker.statsFor(new Path(f.relativePath).getName) else None)
    }
  }
}
