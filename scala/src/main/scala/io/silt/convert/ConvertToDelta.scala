package io.silt.convert

import java.util.UUID

import scala.collection.mutable.ArrayBuffer

import io.silt.config.SiltSettings
import io.silt.errors.ConvertToDeltaException
import io.silt.actions.{AddFile, Format, Metadata, TablePaths}
import io.silt.log.TableLog
import io.silt.partition.PartitionValues
import io.silt.stats.StatsColumn
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.parquet.schema.MessageTypeParser
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils
import org.apache.spark.sql.execution.datasources.parquet.ParquetToSparkSchemaConverter
import org.apache.spark.sql.types.{DataType, StructField, StructType}
import io.silt.write.{SchemaEvolution, TableWriter}

/** The catalog table CONVERT TO DELTA converts: its name and the columns the catalog gives it (partitions aside). */
final case class CatalogSource(name: String, dataSchema: StructType)

/** What CONVERT TO DELTA did: the version it committed (None: the folder was a Delta table already) and the files added. */
final case class ConvertResult(version: Option[Long], numFiles: Long)

/**
 * CONVERT TO DELTA: makes the Parquet files of a folder a Delta table in place, in one commit that
 * adds every file as it is (nothing moved or rewritten), with the schema merged from the files'
 * footers, partition values from `col=value` folder names typed by the declared partition schema,
 * and statistics read from the footers unless `collectStats` is off.
 */
object ConvertToDelta {
  private val HiveNull = ExternalCatalogUtils.DEFAULT_PARTITION_NAME
  private val MetadataLog = "_spark_metadata"

  /** `catalogTable`: the catalog table being converted, its name recorded in the commit. */
  def run(spark: SparkSession, root: Path, partitionSchema: StructType, collectStats: Boolean,
      catalogTable: Option[CatalogSource]): ConvertResult = {
    val log = TableLog.forPath(spark, root.toString)
    if (log.exists) return ConvertResult(None, 0)
    val fs = root.getFileSystem(log.hadoopConf)
    if (!fs.exists(root)) throw new ConvertToDeltaException(root.toString, s"cannot convert $root: there is no such folder")
    val qualifiedRoot = fs.makeQualified(root)
    // A streaming query's output holds the files of failed batches too: only its _spark_metadata log says which count.
    if (SiltSettings.ConvertUseMetadataLog(spark) && fs.exists(new Path(qualifiedRoot, MetadataLog))) {
      throw new ConvertToDeltaException(root.toString, s"cannot convert $root: it was written by a streaming query, " +
        s"whose $MetadataLog log says which of its files count, and Silt does not read that log. Set " +
        s"${SiltSettings.ConvertUseMetadataLog.key} (or Delta Lake's spark.databricks.delta.convert.useMetadataLog) = false " +
        "to convert every Parquet file in the folder, once no file of a failed batch is left in it.")
    }
    val files = listDataFiles(fs, qualifiedRoot)
    if (files.isEmpty) {
      throw new ConvertToDeltaException(root.toString, s"cannot convert $root: it holds no Parquet files to take a " +
        "schema from; create the table with CREATE TABLE … USING silt instead")
    }
    val timeZone = spark.sessionState.conf.sessionLocalTimeZone
    val partitions = files.map(f => f -> partitionValues(root, f, partitionSchema, timeZone)).toMap
    val footers = ParquetFooters.read(spark, files, log.hadoopConf)
    val failed = footers.collect { case Left(e) => e }
    if (failed.nonEmpty) {
      throw new ConvertToDeltaException(root.toString, s"cannot convert $root: ${failed.size} file(s) are not readable " +
        s"Parquet: ${failed.take(10).map { case (f, msg) => s"${f.path} ($msg)" }.mkString("; ")}" +
        (if (failed.size > 10) "; …" else "") + ". Move them out of the folder (or rename them to start with _ or ., " +
        "which CONVERT and readers skip), then convert again.")
    }
    val summaries = footers.collect { case Right(s) => s }
    val converter = new ParquetToSparkSchemaConverter(spark.sessionState.conf)
    val parsed = summaries.map(s => s -> MessageTypeParser.parseMessageType(s.schema)).toMap
    val dataSchema = mergeSchemas(root, summaries.map(s => s.file -> converter.convert(parsed(s))))
    catalogTable.filter(_ => SiltSettings.ConvertUseCatalogSchema(spark)).foreach(checkCatalogSchema(root, dataSchema, _))
    dataSchema.fields.find(f => partitionSchema.fieldNames.exists(_.equalsIgnoreCase(f.name))).foreach { f =>
      throw new ConvertToDeltaException(root.toString, s"cannot convert $root: column ${f.name} is both a partition " +
        "column (a folder name) and a column inside the files")
    }
    val schema = StructType(dataSchema.fields ++ partitionSchema.fields.map(_.copy(nullable = true)))
    val metadata = Metadata(UUID.randomUUID().toString, None, None, Format(), schema.json, partitionSchema.fieldNames.toSeq,
      Map.empty, Some(System.currentTimeMillis()))
    val statsColumns = StatsColumn.forTable(dataSchema, metadata)
    val adds = summaries.map { s =>
      AddFile(TablePaths.relativeEncoded(s.file.relative), partitions(s.file), s.file.size, s.file.modificationTime,
        dataChange = true, stats = if (collectStats) Some(FooterStatistics.of(s, parsed(s), statsColumns)) else None)
    }
    val txn = OptimisticTransaction.start(spark, log)
    txn.updateMetadata(metadata)
    TableWriter.upgradeProtocol(txn, txn.metadata)
    val version = txn.commit(adds, Operation.Convert(adds.size.toLong, partitionSchema.fieldNames.toSeq, collectStats,
      catalogTable.map(_.name), Map("numConvertedFiles" -> adds.size.toLong)))
    ConvertResult(Some(version), adds.size.toLong)
  }

  /**
   * Delta Lake gives a converted catalog table the catalog's columns; Silt takes the files' footers,
   * so where the two differ (but for nullability) it refuses rather than make another table.
   */
  private def checkCatalogSchema(root: Path, footers: StructType, catalog: CatalogSource): Unit = {
    def columns(s: StructType) = SchemaEvolution.asNullable(s).fields.map(f => f.name.toLowerCase -> f.dataType).toSeq
    if (columns(footers) != columns(catalog.dataSchema)) {
      throw new ConvertToDeltaException(root.toString, s"cannot convert ${catalog.name}: the catalog gives it the " +
        s"columns (${catalog.dataSchema.toDDL}) and its files' footers hold (${footers.toDDL}); Delta Lake would take the " +
        s"catalog's, Silt can only take the files'. Set ${SiltSettings.ConvertUseCatalogSchema.key} (or Delta Lake's " +
        "spark.databricks.delta.convert.useCatalogSchema) = false to convert with the files' columns.")
    }
  }

  /**
   * The files under `root`, skipping hidden names (`_x`, `.x`: `_SUCCESS`, `_delta_log`, checksums) but not
   * partition folders such as `_x=y`.
   */
  private def listDataFiles(fs: FileSystem, root: Path): Seq[SourceFile] = {
    val rootPath = root.toUri.getPath.stripSuffix("/") + "/"
    val out = ArrayBuffer.empty[SourceFile]
    val it = fs.listFiles(root, true)
    while (it.hasNext) {
      val st = it.next()
      val relative = st.getPath.toUri.getPath.stripPrefix(rootPath)
      if (!relative.split('/').exists(TablePaths.isHidden)) {
        out += SourceFile(st.getPath.toString, relative, st.getLen, st.getModificationTime)
      }
    }
    out.sortBy(_.relative).toSeq
  }

  /** The partition values of a file from its folders' `col=value` names, checked against the declared partition schema. */
  private def partitionValues(root: Path, f: SourceFile, partitionSchema: StructType, timeZone: String): Map[String, String] = {
    val dirs = f.relative.split('/').toSeq.init
    val pairs = dirs.map { d =>
      val eq = d.indexOf('=')
      if (eq <= 0) {
        throw new ConvertToDeltaException(root.toString, s"cannot convert $root: file ${f.path} is in folder '$d', " +
          "which is not a partition folder (col=value); move it, or convert the folder it is in")
      }
      ExternalCatalogUtils.unescapePathName(d.substring(0, eq)) -> ExternalCatalogUtils.unescapePathName(d.substring(eq + 1))
    }
    val names = pairs.map(_._1)
    val declared = partitionSchema.fieldNames.toSeq
    if (names.size != declared.size || names.zip(declared).exists { case (a, b) => !a.equalsIgnoreCase(b) }) {
      val hint = if (declared.isEmpty) s"PARTITIONED BY (${names.map(n => s"$n <type>").mkString(", ")})"
        else s"PARTITIONED BY (${declared.mkString(", ")}) with folders in that order"
      throw new ConvertToDeltaException(root.toString, s"cannot convert $root: file ${f.path} is partitioned by " +
        s"(${names.mkString(", ")}), but the partition schema declared is (${declared.mkString(", ")}); " +
        s"declare $hint")
    }
    partitionSchema.fields.zip(pairs).map { case (field, (_, raw)) =>
      val value = if (raw == HiveNull) null else raw
      try PartitionValues.parse(value, field.dataType, timeZone) catch {
        case e: IllegalArgumentException => throw new ConvertToDeltaException(root.toString, s"cannot convert $root: " +
          s"file ${f.path} has partition value '$raw' for ${field.name}, which is not a ${field.dataType.simpleString} " +
          s"(${e.getMessage}); declare the partition column with another type")
      }
      field.name -> value
    }.toMap
  }

  /**
   * The union of the files' columns, in the order first seen; a column of two different types in
   * two files is refused, naming both files.
   */
  private def mergeSchemas(root: Path, schemas: Seq[(SourceFile, StructType)]): StructType = {
    val fields = scala.collection.mutable.LinkedHashMap.empty[String, (StructField, SourceFile)]
    schemas.foreach { case (file, schema) =>
      schema.fields.foreach { f =>
        fields.get(f.name.toLowerCase) match {
          case None => fields(f.name.toLowerCase) = (f, file)
          case Some((seen, from)) if nullable(seen) != nullable(f) =>
            throw new ConvertToDeltaException(root.toString, s"cannot convert $root: column ${f.name} is " +
              s"${seen.dataType.simpleString} in ${from.path} but ${f.dataType.simpleString} in ${file.path}; " +
              "rewrite one of them so that they agree, or move it out of the folder")
          case _ =>
        }
      }
    }
    SchemaEvolution.asNullable(StructType(fields.values.map(_._1).toSeq))
  }

  private def nullable(f: StructField): DataType = SchemaEvolution.asNullable(StructType(Seq(f.copy(name = "x")))).head.dataType
}
