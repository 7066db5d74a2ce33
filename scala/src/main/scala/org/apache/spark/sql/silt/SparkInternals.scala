package org.apache.spark.sql.silt

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * The few Spark-internal conversions Silt needs (they are private to Spark's `sql` package),
 * kept in one place so that a Spark upgrade has one file to check.
 */
object SparkInternals {
  def column(e: Expression): Column = ClassicApi.column(e)

  /** A connector NULL literal of type `dt` (the class is Spark-private). */
  def nullLiteral(dt: org.apache.spark.sql.types.DataType): org.apache.spark.sql.connector.expressions.Literal[_] =
    org.apache.spark.sql.connector.expressions.LiteralValue(null, dt)

  def expression(c: Column): Expression = ClassicApi.expression(c)

  /**
   * A Column's Catalyst expression itself, converted now: `expression` may wrap it for the analyzer
   * to convert later, which a plan that Silt's commands take apart after analysis never sees done.
   */
  def convertedExpression(c: Column): Expression = ClassicApi.convertedExpression(c)

  def dataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame =
    ClassicApi.dataFrame(spark, plan)

  /** A streaming source's micro-batch over `relation` (Spark requires it to be marked as streaming). */
  def streamingDataFrame(spark: SparkSession, relation: org.apache.spark.sql.sources.BaseRelation): DataFrame =
    dataFrame(spark, org.apache.spark.sql.execution.datasources.LogicalRelation(relation, isStreaming = true))

  /** A micro-batch's rows as a batch DataFrame (a sink may not re-plan the streaming plan it is given). */
  def batchOf(data: DataFrame): DataFrame = {
    val session = ClassicApi.session(data.sparkSession)
    session.internalCreateDataFrame(data.queryExecution.toRdd, data.schema)
  }

  /** A copy of `spark` (same settings, catalog and context) whose setting changes stay its own. */
  def cloneSession(spark: SparkSession): SparkSession = ClassicApi.session(spark).cloneSession()

  /**
   * Starts Spark's vectorized Parquet reader on `split` with the file's footer already read (of the
   * split's row groups): Spark 4.1 and later take the file, a stream and the footer, 4.0 the footer
   * alone. Where neither is found, the reader reads the footer itself.
   */
  def initializeWithFooter(reader: org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader,
      split: org.apache.hadoop.mapreduce.InputSplit, context: org.apache.hadoop.mapreduce.TaskAttemptContext,
      footer: org.apache.parquet.hadoop.metadata.ParquetMetadata): Unit = {
    val conf = context.getConfiguration
    val path = split.asInstanceOf[org.apache.hadoop.mapred.FileSplit].getPath
    try FooterTakingInitialize.map(_.getParameterCount).getOrElse(0) match {
      case 5 =>
        val file = org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(path, conf)
        val stream = file.newStream()
        try FooterTakingInitialize.get.invoke(reader, split, context, Some(file), Some(stream), Some(footer))
        catch { case e: Throwable => stream.close(); throw e }
      case 3 => FooterTakingInitialize.get.invoke(reader, split, context, Some(footer))
      case _ => reader.initialize(split, context)
    } catch { case e: java.lang.reflect.InvocationTargetException => throw e.getCause }
  }

  private lazy val FooterTakingInitialize: Option[java.lang.reflect.Method] =
    classOf[org.apache.spark.sql.execution.datasources.parquet.VectorizedParquetRecordReader].getMethods.toSeq
      .filter(m => m.getName == "initialize" && m.getParameterTypes.lastOption.contains(classOf[Option[_]]))
      .filter(m => m.getParameterCount == 5 || m.getParameterCount == 3).sortBy(-_.getParameterCount).headOption

  /**
   * Every Parquet setting (internal ones too) with its value in `conf`: what Spark's Parquet reader
   * looks up in its Hadoop configuration, which a Spark scan fills from its session.
   */
  def parquetSettings(conf: org.apache.spark.sql.internal.SQLConf): Seq[(String, String)] = {
    import scala.jdk.CollectionConverters._
    val set = conf.getAllConfs
    // private to Spark's sql package in some minors, public in others: reached the same way in all
    val sqlConf = org.apache.spark.sql.internal.SQLConf
    val entries = sqlConf.getClass.getMethod("getConfigEntries").invoke(sqlConf)
      .asInstanceOf[java.util.Collection[org.apache.spark.internal.config.ConfigEntry[_]]]
    entries.asScala.toSeq.filter(_.key.contains(".parquet.")).flatMap { e =>
      // a default of "<undefined>" or "<value of …>" is no value of its own
      set.get(e.key).orElse(Option(e.defaultValueString).filterNot(_.startsWith("<"))).map(e.key -> _)
    }
  }
}

/**
 * A V2 table that Spark's streaming writes (`toTable`) and streaming reads of a catalog table
 * reach through its V1 definition (the table's `silt` data source), since Spark's V1-fallback
 * marker is private to its `sql` package.
 */
abstract class TableWithV1Fallback extends org.apache.spark.sql.connector.catalog.V2TableWithV1Fallback
