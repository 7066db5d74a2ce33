package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException}
import io.silt.actions.ActionCodec
import io.silt.config.TableFileSystem
import io.silt.dml.ReplaceMatchingRows
import io.silt.features.ColumnMapping
import io.silt.log.TableLog
import io.silt.shims.TypeCheckingRelationProvider
import scala.util.chaining._
import io.silt.read.{ChangeFeed, ChangeFeedRelation, ReadOptions, SiltParquetFileFormat, SiltRelation, SourceOptions,
  StreamingSource, TimeTravel}
import io.silt.write.{StreamingSink, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.execution.streaming.{Sink, Source}
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister, RelationProvider,
  StreamSinkProvider, StreamSourceProvider}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.types.{DataType, StructType}
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The `silt` format: `spark.read.format("silt")` and `df.write.format("silt")`. It is a
 * TableProvider so that `USING silt` tables go through [[SiltCatalog]], and a V1 relation
 * provider for path-based reads and writes.
 */
class SiltDataSource extends DataSourceRegister with RelationProvider with TypeCheckingRelationProvider with TableProvider
    with StreamSinkProvider with StreamSourceProvider {

  override def shortName(): String = "silt"

  // Spark's default refuses VARIANT for every V1 writer; a table takes whatever its Parquet files can hold.
  override def supportsDataType(dt: DataType): Boolean = new SiltParquetFileFormat().supportDataType(dt)

  override def createRelation(sqlContext: SQLContext, caseInsensitive: Map[String, String]): BaseRelation = {
    val spark = sqlContext.sparkSession
    val (fileSystem, parameters) = SiltDataSource.asGiven(caseInsensitive).partition { case (k, _) => TableFileSystem.isOption(k) }
    ReadOptions.validate(parameters)
    val path = SiltDataSource.pathOf(parameters)
    // The relation built here keeps the table's file-system settings for the tasks that read its files.
    TableFileSystem.withOptions(spark, path, fileSystem) {
      if (ReadOptions.readsChangeFeed(parameters)) {
        val log = TableLog.forPath(spark, path)
        val (from, to) = ChangeFeed.rangeOf(spark, log, parameters)
        new ChangeFeedRelation(sqlContext, ChangeFeed.changes(spark, log, from, to))
      } else SiltRelation(spark, path, TimeTravel.fromOptions(spark, parameters))
    }
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, caseInsensitive: Map[String, String],
      data: DataFrame): BaseRelation = {
    val spark = sqlContext.sparkSession
    val (fileSystem, parameters) = SiltDataSource.asGiven(caseInsensitive).partition { case (k, _) => TableFileSystem.isOption(k) }
    val path = SiltDataSource.pathOf(parameters)
    val partitionBy = parameters.get("__partition_columns").map { json =>
      ActionCodec.mapper.readTree(json).elements().asScala.map(_.asText).toSeq
    }
    TableFileSystem.withOptions(spark, path, fileSystem) {
      ReplaceMatchingRows.write(spark, new Path(path), data, WriteOptions.fromOptions(spark, mode, parameters, partitionBy))
      SiltRelation(spark, path, TimeTravel.Latest)
    }
  }

  /** `writeStream.format("silt")`: see [[StreamingSink]]. */
  override def createSink(sqlContext: SQLContext, parameters: Map[String, String], partitionColumns: Seq[String],
      outputMode: OutputMode): Sink = {
    val options = SiltDataSource.asGiven(parameters)
    new StreamingSink(new Path(SiltDataSource.pathOf(options)), options, partitionColumns, outputMode)
  }

  /** `spark.readStream.format("silt")`: the table's schema, checked against one the reader states. */
  override def sourceSchema(sqlContext: SQLContext, schema: Option[StructType], providerName: String,
      parameters: Map[String, String]): (String, StructType) = {
    val spark = sqlContext.sparkSession
    val options = SiltDataSource.asGiven(parameters)
    val parsed = SourceOptions.parse(spark, options)
    val path = SiltDataSource.pathOf(options)
    val metadata = TableLog.forPath(spark, path).latest().metadata
    val tableSchema = metadata.schema.pipe(ColumnMapping.logicalSchema)
    val streamSchema = if (parsed.readChangeFeed) ChangeFeed.schemaOf(metadata) else tableSchema
    // A catalog table's stream is handed the catalog's schema (nullable); a reader's own must be the table's.
    schema.filterNot(s => SiltCatalog.sameColumns(s, tableSchema) || SiltCatalog.sameColumns(s, streamSchema)).foreach { s =>
      throw new SchemaMismatchException(s"the schema given to the stream of $path, ${s.simpleString}, is not the " +
        s"table's ${tableSchema.simpleString}: a stream of a Silt table reads the table's schema; leave .schema(...) out")
    }
    (shortName(), streamSchema)
  }

  /** See [[StreamingSource]]; `metadataPath` is the query's checkpoint folder for this source. */
  override def createSource(sqlContext: SQLContext, metadataPath: String, schema: Option[StructType],
      providerName: String, parameters: Map[String, String]): Source = {
    val spark = sqlContext.sparkSession
    val options = SiltDataSource.asGiven(parameters)
    new StreamingSource(spark, TableLog.forPath(spark, SiltDataSource.pathOf(options)), SourceOptions.parse(spark, options),
      metadataPath)
  }

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    TableLog.forPath(org.apache.spark.sql.SparkSession.active, SiltDataSource.pathOf(options.asScala.toMap))
      .latest().metadata.schema.pipe(ColumnMapping.logicalSchema)

  override def supportsExternalMetadata(): Boolean = true

  override def getTable(schema: StructType, partitioning: Array[Transform], properties: util.Map[String, String]): Table = {
    val spark = org.apache.spark.sql.SparkSession.active
    SiltTableV2(spark, new Path(SiltDataSource.pathOf(properties.asScala.toMap)))
  }
}

object SiltDataSource {
  /** The options with their keys as the user wrote them (Spark hands them over lower-cased), for messages and properties. */
  def asGiven(options: Map[String, String]): Map[String, String] = options match {
    case c: CaseInsensitiveMap[String @unchecked] => c.originalMap
    case other => other
  }

  def pathOf(parameters: Map[String, String]): String =
    parameters.find(_._1.equalsIgnoreCase("path")).map(_._2).getOrElse(
      throw new InvalidTableOperationException("a path is required: use .load(path) or .save(path)"))
}
