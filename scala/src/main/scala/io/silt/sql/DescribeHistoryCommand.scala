package io.silt.sql

import io.silt.log.TableLog
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types._

/** DESCRIBE HISTORY: one row per commit, newest first, from the commits' commitInfo. */
final case class DescribeHistoryCommand(table: TableRef, limit: Option[Int]) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = DescribeHistoryCommand.schema.map(f =>
    AttributeReference(f.name, f.dataType, f.nullable)())

  override def run(spark: SparkSession): Seq[Row] = {
    val log = TableLog.forPath(spark, table.path(spark).toString)
    log.latest() // refuses a path that is not a table, naming it
    val commits = log.commits()
    commits.entries.reverse.take(limit.getOrElse(Int.MaxValue)).map { c =>
      val info = commits.commitInfo(c)
      Row(
        c.version,
        new java.sql.Timestamp(info.flatMap(_.inCommitTimestamp).getOrElse(c.timestamp)),
        info.flatMap(_.userId).orNull,
        info.flatMap(_.userName).orNull,
        info.flatMap(_.operation).orNull,
        info.map(_.operationParameters).orNull,
        info.flatMap(_.textFields("job", DescribeHistoryCommand.JobFields)).map(Row.fromSeq).orNull,
        info.flatMap(_.textFields("notebook", DescribeHistoryCommand.NotebookFields)).map(Row.fromSeq).orNull,
        info.flatMap(_.clusterId).orNull,
        info.flatMap(_.readVersion).map(Long.box).orNull,
        info.flatMap(_.isolationLevel).orNull,
        info.flatMap(_.isBlindAppend).map(Boolean.box).orNull,
        info.map(_.operationMetrics).orNull,
        info.flatMap(_.userMetadata).orNull,
        info.flatMap(_.engineInfo).orNull)
    }
  }
}

object DescribeHistoryCommand {
  // Delta Lake's history has these columns (filled from commits Databricks wrote, null otherwise).
  val JobFields: Seq[String] = Seq("jobId", "jobName", "jobRunId", "runId", "jobOwnerId", "triggerType")
  val NotebookFields: Seq[String] = Seq("notebookId")

  val schema: StructType = StructType(Seq(
    StructField("version", LongType),
    StructField("timestamp", TimestampType),
    StructField("userId", StringType),
    StructField("userName", StringType),
    StructField("operation", StringType),
    StructField("operationParameters", MapType(StringType, StringType)),
    StructField("job", StructType(JobFields.map(StructField(_, StringType)))),
    StructField("notebook", StructType(NotebookFields.map(StructField(_, StringType)))),
    StructField("clusterId", StringType),
    StructField("readVersion", LongType),
    StructField("isolationLevel", StringType),
    StructField("isBlindAppend", BooleanType),
    StructField("operationMetrics", MapType(StringType, StringType)),
    StructField("userMetadata", StringType),
    StructField("engineInfo", StringType)))
}
