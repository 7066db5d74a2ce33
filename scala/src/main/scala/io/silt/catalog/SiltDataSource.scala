package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.errors.InvalidTableOperationException
import io.silt.log.{ActionCodec, ColumnMapping, TableLog}
import scala.util.chaining._
import io.silt.read.{ReadOptions, SiltRelation, TimeTravel}
import io.silt.write.{StreamingSink, TableWriter, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.sources.{BaseRelation, CreatableRelationProvider, DataSourceRegister, RelationProvider,
  StreamSinkProvider}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.sql.catalyst.util.CaseInsensitiveMap
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * The `silt` format: `spark.read.format("silt")` and `df.write.format("silt")`. It is a
 * TableProvider so that `USING silt` tables go through [[SiltCatalog]], and a V1 relation
 * provider for path-based reads and writes.
 */
class SiltDataSource extends DataSourceRegister with RelationProvider with CreatableRelationProvider with TableProvider
    with StreamSinkProvider {

  override def shortName(): String = "silt"

  override def createRelation(sqlContext: SQLContext, caseInsensitive: Map[String, String]): BaseRelation = {
    val spark = sqlContext.sparkSession
    val parameters = SiltDataSource.asGiven(caseInsensitive)
    ReadOptions.validate(parameters)
    SiltRelation(spark, SiltDataSource.pathOf(parameters), TimeTravel.fromOptions(spark, parameters))
  }

  override def createRelation(sqlContext: SQLContext, mode: SaveMode, caseInsensitive: Map[String, String],
      data: DataFrame): BaseRelation = {
    val spark = sqlContext.sparkSession
    val parameters = SiltDataSource.asGiven(caseInsensitive)
    val path = SiltDataSource.pathOf(parameters)
    val partitionBy = parameters.get("__partition_columns").map { json =>
      ActionCodec.mapper.readTree(json).elements().asScala.map(_.asText).toSeq
    }
    TableWriter.write(spark, new Path(path), data, WriteOptions.fromOptions(spark, mode, parameters, partitionBy))
    SiltRelation(spark, path, TimeTravel.Latest)
  }

  /** `writeStream.format("silt")`: see [[StreamingSink]]. */
  override def createSink(sqlContext: SQLContext, parameters: Map[String, String], partitionColumns: Seq[String],
      outputMode: OutputMode): Sink = {
    val options = SiltDataSource.asGiven(parameters)
    new StreamingSink(new Path(SiltDataSource.pathOf(options)), options, partitionColumns, outputMode)
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
