package io.silt.write

import io.silt.config.SiltSettings
import io.silt.errors.UnsupportedOptionException
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode}
import org.apache.spark.sql.execution.streaming.Sink
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.streaming.OutputMode

/**
 * The `silt` streaming sink (`df.writeStream.format("silt").start(path)`): each micro-batch is one
 * commit that carries a `txn` action of (the query's id, the batch id). A query restarted from its
 * checkpoint runs again the batch it had not marked done; if that batch was committed already, the
 * table's `txn` says so and the batch is skipped: every row once. Output mode append adds each
 * batch's rows; complete replaces the table's rows with each batch's.
 */
final class StreamingSink(path: Path, options: Map[String, String], partitionColumns: Seq[String], outputMode: OutputMode)
    extends Sink {
  private val mode =
    if (outputMode == OutputMode.Append()) SaveMode.Append
    else if (outputMode == OutputMode.Complete()) SaveMode.Overwrite
    else throw new UnsupportedOptionException("outputMode", s"output mode $outputMode is not supported by the Silt " +
      "sink: use append or complete (update needs a MERGE per batch: write it with foreachBatch)")
  // Spark's own options of a streaming query; the rest are write options, validated as a batch write's.
  private val writeOptions = options.filterNot { case (k, _) => StreamingSink.QueryOptions.exists(_.equalsIgnoreCase(k)) }
  WriteOptions.refuseStreamIdempotence(writeOptions)
  // A micro-batch writes all its rows: a predicate or partition mode of an overwrite has no place here.
  writeOptions.keys.find(k => StreamingSink.BatchOnlyOptions.exists(_.equalsIgnoreCase(k))).foreach { k =>
    throw new UnsupportedOptionException(k, s"option $k does not apply to a streaming write: each micro-batch " +
      "appends its rows (output mode append) or replaces the whole table (complete)")
  }

  override def addBatch(batchId: Long, data: DataFrame): Unit = {
    val spark = data.sparkSession
    val queryId = spark.sparkContext.getLocalProperty(StreamingSink.QueryIdKey)
    val parsed = WriteOptions.fromOptions(spark, mode, writeOptions, Some(partitionColumns).filter(_.nonEmpty))
    // The session's txnAppId would be replaced by the query's: refused rather than ignored.
    if (parsed.appTransaction.isDefined) WriteOptions.refuseStreamIdempotence(Map(SiltSettings.TxnAppId.key -> ""))
    // Complete mode replaces the whole table, whatever the session's partitionOverwriteMode says.
    val opts = parsed.copy(dynamicPartitionOverwrite = false,
        appTransaction = Some(AppTransaction(queryId, batchId, fromSession = false)),
        streamingBatch = Some(StreamingBatch(if (mode == SaveMode.Append) "Append" else "Complete", queryId, batchId)))
    TableWriter.write(spark, path, SparkInternals.batchOf(data), opts)
  }

  override def toString: String = s"SiltSink[$path]"
}

object StreamingSink {
  /** The local property a streaming query's id is in (Spark's StreamExecution.QUERY_ID_KEY, which moved package in 4.1). */
  val QueryIdKey = "sql.streaming.queryId"
  /** Options of the streaming query itself, not of the writes. */
  val QueryOptions: Seq[String] = Seq("checkpointLocation", "queryName", "path")
  /** Write options that only make sense for a batch overwrite. */
  val BatchOnlyOptions: Seq[String] = Seq("replaceWhere", "partitionOverwriteMode")
}
