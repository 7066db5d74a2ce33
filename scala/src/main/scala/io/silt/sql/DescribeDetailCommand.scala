package io.silt.sql

import io.silt.features.Clustering
import io.silt.log.TableLog
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types._

/** DESCRIBE DETAIL: one row describing the table's current version. */
final case class DescribeDetailCommand(table: TableRef) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = DescribeDetailCommand.schema.map(f =>
    AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val path = table.path(spark)
    val log = TableLog.forPath(spark, path.toString)
    val s = log.latest()
    val lastCheckpoint = log.listing().checkpoints.headOption.map(c => Long.box(c.version)).orNull
    val m = s.metadata
    val features = (s.protocol.readerFeatures.getOrElse(Set.empty) ++ s.protocol.writerFeatures.getOrElse(Set.empty)).toSeq.sorted
    Seq(Row(
      "delta",
      m.id,
      table match { case TableRef.ByName(parts) => parts.mkString("."); case _ => null },
      m.description.orNull,
      s.tablePath.toString,
      m.createdTime.map(t => new java.sql.Timestamp(t)).orNull,
      new java.sql.Timestamp(s.timestamp),
      m.partitionColumns,
      Clustering.physicalColumns(s.domains).map(Clustering.logicalNames(m.schema, _)).getOrElse(Nil),
      s.numFiles.toLong,
      s.sizeInBytes,
      m.configuration,
      s.protocol.minReaderVersion,
      s.protocol.minWriterVersion,
      features,
      s.version,
      lastCheckpoint))
  }
}

object DescribeDetailCommand {
  val schema: StructType = StructType(Seq(
    StructField("format", StringType),
    StructField("id", StringType),
    StructField("name", StringType),
    StructField("description", StringType),
    StructField("location", StringType),
    StructField("createdAt", TimestampType),
    StructField("lastModified", TimestampType),
    StructField("partitionColumns", ArrayType(StringType)),
    StructField("clusteringColumns", ArrayType(StringType)),
    StructField("numFiles", LongType),
    StructField("sizeInBytes", LongType),
    StructField("properties", MapType(StringType, StringType)),
    StructField("minReaderVersion", IntegerType),
    StructField("minWriterVersion", IntegerType),
    StructField("tableFeatures", ArrayType(StringType)),
    StructField("version", LongType),
    StructField("lastCheckpointVersion", LongType)))
}
