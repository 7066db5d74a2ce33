package io.silt.write

import scala.jdk.CollectionConverters._

import io.silt.config.SiltSettings
import io.silt.config.OptionSpec
import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import org.apache.spark.sql.{SaveMode, SparkSession}

/**
 * An idempotent write's application id and version (`txnAppId` / `txnVersion`); `fromSession`:
 * given by the session settings, whose version is cleared once a write used it.
 */
final case class AppTransaction(appId: String, version: Long, fromSession: Boolean)

/** The micro-batch a streaming write commits: recorded as Delta's STREAMING UPDATE. */
final case class StreamingBatch(outputMode: String, queryId: String, batchId: Long)

/** How to write: the DataFrameWriter mode and the options Silt honours, validated. */
final case class WriteOptions(
    mode: SaveMode,
    partitionBy: Option[Seq[String]] = None,
    clusterBy: Option[Seq[String]] = None,
    replaceWhere: Option[String] = None,
    mergeSchema: Boolean = false,
    overwriteSchema: Boolean = false,
    dynamicPartitionOverwrite: Boolean = false,
    appTransaction: Option[AppTransaction] = None,
    streamingBatch: Option[StreamingBatch] = None,
    userMetadata: Option[String] = None,
    dataChange: Boolean = true,
    fileWriterOptions: Map[String, String] = Map.empty,
    properties: Map[String, String] = Map.empty,
    description: Option[String] = None,
    replaceMatching: Option[ReplaceMatching] = None,
    optimizeWrite: Option[Boolean] = None) {

  def overwrite: Boolean = mode == SaveMode.Overwrite
}

object WriteOptions {
  val PartitionOverwriteModeKey = "spark.sql.sources.partitionOverwriteMode"
  /** Where DataFrameWriter.clusterBy puts its columns (a JSON array) among a V1 write's options. */
  val ClusteringColumnsKey = "__clustering_columns"
  private val TxnAppIdKey = SiltSettings.TxnAppId.key
  private val TxnVersionKey = SiltSettings.TxnVersion.key
  private val UserMetadataKey = SiltSettings.UserMetadata.key

  /** The DataFrameWriter options Silt honours, then the Delta ones it refuses (any other is refused too). */
  val Options: Seq[OptionSpec] = Seq(
    OptionSpec("replaceWhere", honoured = true, "overwrite only the rows matching this predicate"),
    OptionSpec("mergeSchema", honoured = true, "add the data's new columns to the table schema"),
    OptionSpec("overwriteSchema", honoured = true, "with mode overwrite: replace the schema and partitioning"),
    OptionSpec("partitionOverwriteMode", honoured = true,
      "`static` or `dynamic`: with mode overwrite, dynamic replaces only the partitions the data has"),
    OptionSpec("txnAppId", honoured = true, "idempotent writes: the application id (with txnVersion)"),
    OptionSpec("txnVersion", honoured = true,
      "idempotent writes: skipped unless above the version recorded for txnAppId"),
    OptionSpec("userMetadata", honoured = true, "recorded in commitInfo and DESCRIBE HISTORY"),
    OptionSpec("dataChange", honoured = true,
      "`false`: a rewrite of existing rows (adds and removes marked dataChange = false)"),
    OptionSpec("maxRecordsPerFile", honoured = true, "at most this many rows per data file"),
    OptionSpec("compression", honoured = true, "Parquet codec of the data files"),
    OptionSpec("delta.*", honoured = true, "table properties of a table the write creates"),
    OptionSpec("fs.*", honoured = true, "Hadoop file-system settings of this table alone (save(path) only)"),
    OptionSpec("dfs.*", honoured = true, "Hadoop file-system settings of this table alone (save(path) only)"),
    OptionSpec("optimizeWrite", honoured = true,
      "`true`: shuffle the rows by partition into files near the bin size (see Optimized writes)"),
    OptionSpec("replaceUsing", honoured = true, "with mode overwrite: replace the rows whose columns equal a row's of the data"),
    OptionSpec("replaceOn", honoured = true, "with mode overwrite: replace the rows matching a row of the data on a condition"),
    OptionSpec("targetAlias", honoured = true, "the table's name in a replaceOn condition"),
    OptionSpec("checkpointLocation", honoured = false, "a streaming query's option: refused on batch writes"),
    OptionSpec("queryName", honoured = false, "a streaming query's option: refused on batch writes"))

  /** Session settings a write honours. */
  val Settings: Seq[OptionSpec] = Seq(
    OptionSpec(PartitionOverwriteModeKey, honoured = true,
      "`dynamic`: mode overwrite replaces only the partitions the data has (the option wins)"),
    OptionSpec(TxnAppIdKey, honoured = true, "idempotent writes of every write in the session (with the next)"),
    OptionSpec(TxnVersionKey, honoured = true, "idempotent writes: cleared after the write that used it (unless " +
      s"${SiltSettings.TxnVersionAutoReset.key} = false)"),
    OptionSpec(UserMetadataKey, honoured = true, "userMetadata of every commit (a write's option wins)"),
    OptionSpec("spark.sql.files.maxRecordsPerFile", honoured = true, "as Spark: rows per data file"),
    OptionSpec(SiltSettings.SchemaAutoMerge.key, honoured = true,
      "`true`: writes add the data's new columns unless the option mergeSchema says otherwise; MERGE adds the source's " +
        "(as MERGE WITH SCHEMA EVOLUTION)"),
    OptionSpec("spark.databricks.delta.write.txnAppId", honoured = true, s"$TxnAppIdKey under Delta Lake's name"),
    OptionSpec("spark.databricks.delta.write.txnVersion", honoured = true, s"$TxnVersionKey under Delta Lake's name: " +
      "kept after the write, as in Delta Lake, unless spark.databricks.delta.write.txnVersion.autoReset.enabled = true"),
    OptionSpec("spark.databricks.delta.commitInfo.userMetadata", honoured = true, s"$UserMetadataKey under Delta Lake's name"),
    OptionSpec("spark.databricks.delta.schema.autoMerge.enabled", honoured = true,
      s"${SiltSettings.SchemaAutoMerge.key} under Delta Lake's name"),
    OptionSpec(SiltSettings.ReplaceWhereConstraintCheck.key, honoured = true,
      "`false`: a replaceWhere write may hold rows its predicate does not match"),
    OptionSpec(SiltSettings.ReplaceWhereDataColumns.key, honoured = true,
      "`false`: replaceWhere predicates on partition columns only, as before Delta Lake 1.1"),
    OptionSpec("spark.databricks.delta.replaceWhere.constraintCheck.enabled", honoured = true,
      s"${SiltSettings.ReplaceWhereConstraintCheck.key} under Delta Lake's name"),
    OptionSpec("spark.databricks.delta.replaceWhere.dataColumns.enabled", honoured = true,
      s"${SiltSettings.ReplaceWhereDataColumns.key} under Delta Lake's name"),
    OptionSpec(SiltSettings.OptimizeWriteEnabled.key, honoured = true,
      "`true` / `false`: optimized writes unless the option optimizeWrite says otherwise (unset: the table's property)"),
    OptionSpec(SiltSettings.OptimizeWriteBinSize.key, honoured = true, "MiB an optimized write gathers per file"),
    OptionSpec("spark.databricks.delta.optimizeWrite.enabled", honoured = true,
      s"${SiltSettings.OptimizeWriteEnabled.key} under Delta Lake's name"),
    OptionSpec("spark.databricks.delta.optimizeWrite.binSize", honoured = true,
      s"${SiltSettings.OptimizeWriteBinSize.key} under Delta Lake's name"),
    OptionSpec("spark.databricks.delta.properties.defaults.*", honoured = true,
      "table properties delta.* of the tables a write creates, unless the write gives them"))

  /** Keys Spark itself puts among a write's options. */
  private val SparkInternal = Set("path", "paths", "__partition_columns", ClusteringColumnsKey.toLowerCase)

  /**
   * From DataFrameWriter options (case-insensitive keys) and the session's settings; an unknown
   * option, a refused one or a bad value is an error naming it.
   */
  def fromOptions(spark: SparkSession, mode: SaveMode, options: Map[String, String],
      partitionBy: Option[Seq[String]]): WriteOptions = {
    val lower = options.map { case (k, v) => k.toLowerCase -> v }
    OptionSpec.refuseUnhonoured("write", options, Options, SparkInternal, _.startsWith("delta."))
    val overwrite = mode == SaveMode.Overwrite
    val dynamic = partitionOverwriteMode(spark, lower)
    val replaceWhere = lower.get("replacewhere")
    if (replaceWhere.isDefined && dynamic.contains(true) && lower.contains("partitionoverwritemode")) {
      throw new InvalidTableOperationException("options replaceWhere and partitionOverwriteMode = 'dynamic' " +
        "cannot both be set: each says which data to overwrite")
    }
    val overwriteSchema = flag(lower, "overwriteSchema")
    val replaceMatching = ReplaceMatching.fromOptions(lower, overwrite)
    val useDynamic = overwrite && dynamic.contains(true) && replaceWhere.isEmpty && replaceMatching.isEmpty
    if (useDynamic && overwriteSchema) {
      throw new InvalidTableOperationException("option overwriteSchema = true cannot be used with " +
        "partitionOverwriteMode = 'dynamic'; overwrite statically to change the schema")
    }
    WriteOptions(
      mode = mode,
      partitionBy = partitionBy,
      clusterBy = options.find(_._1.equalsIgnoreCase(ClusteringColumnsKey)).map { case (_, json) =>
        io.silt.actions.ActionCodec.mapper.readTree(json).elements().asScala.map(_.asText).toSeq
      },
      replaceWhere = replaceWhere,
      mergeSchema = lower.get("mergeschema").map(v => parseBoolean("mergeSchema", v)).getOrElse(SiltSettings.SchemaAutoMerge(spark)),
      overwriteSchema = overwriteSchema,
      dynamicPartitionOverwrite = useDynamic,
      appTransaction = appTransaction(spark, lower),
      userMetadata = lower.get("usermetadata"),
      dataChange = lower.get("datachange").forall(v => parseBoolean("dataChange", v)),
      fileWriterOptions = fileWriterOptions(lower),
      properties = options.filter(_._1.toLowerCase.startsWith("delta.")),
      replaceMatching = replaceMatching,
      optimizeWrite = lower.get("optimizewrite").map(v => parseBoolean("optimizeWrite", v)))
  }

  private def flag(lower: Map[String, String], name: String): Boolean =
    lower.get(name.toLowerCase).exists(v => parseBoolean(name, v))

  private def parseBoolean(name: String, v: String): Boolean = v.trim.toLowerCase match {
    case "true" => true
    case "false" => false
    case _ => throw new UnsupportedOptionException(name, s"option $name = '$v' must be true or false")
  }

  /** Some(true) for dynamic, Some(false) for static, None when neither the option nor the session says. */
  private def partitionOverwriteMode(spark: SparkSession, lower: Map[String, String]): Option[Boolean] = {
    def parse(name: String, v: String) = v.trim.toLowerCase match {
      case "dynamic" => true
      case "static" => false
      case _ => throw new UnsupportedOptionException(name, s"$name = '$v' must be 'static' or 'dynamic'")
    }
    lower.get("partitionoverwritemode").map(parse("partitionOverwriteMode", _))
      .orElse(spark.conf.getOption(PartitionOverwriteModeKey).map(parse(PartitionOverwriteModeKey, _)))
  }

  /**
   * Refuses txnAppId / txnVersion on a streaming sink: the sink makes each batch idempotent with
   * the query's own id and batch ids, which these would replace.
   */
  def refuseStreamIdempotence(options: Map[String, String]): Unit =
    options.keys.find(k => k.equalsIgnoreCase("txnAppId") || k.equalsIgnoreCase("txnVersion") ||
        k.equalsIgnoreCase(SiltSettings.TxnAppId.key)).foreach { k =>
      throw new UnsupportedOptionException(k, s"$k cannot be set for a streaming write: each micro-batch is " +
        "committed once under the query's id and batch id already (foreachBatch writes may set it)")
    }

  /** The session's idempotent-write settings (both or neither), for statements without write options (DML). */
  def sessionAppTransaction(spark: SparkSession): Option[AppTransaction] = appTransaction(spark, Map.empty)

  /** txnAppId / txnVersion from the options, else from the session (both or neither). */
  private def appTransaction(spark: SparkSession, lower: Map[String, String]): Option[AppTransaction] = {
    val fromOptions = (lower.get("txnappid"), lower.get("txnversion"))
    val fromSession = fromOptions == ((None, None))
    val (appId, version) = if (fromSession) (SiltSettings.TxnAppId.set(spark.conf).map(_._2),
      SiltSettings.TxnVersion.set(spark.conf).map(_._2)) else fromOptions
    val source = if (fromSession) s"session settings $TxnAppIdKey and $TxnVersionKey (or Delta Lake's names for them)"
      else "options txnAppId and txnVersion"
    (appId, version) match {
      case (None, None) => None
      case (Some(a), Some(v)) if a.trim.nonEmpty =>
        val n = try v.trim.toLong catch { case _: NumberFormatException => -1L }
        if (n < 0) throw new UnsupportedOptionException("txnVersion", s"txnVersion = '$v' must be a non-negative integer")
        Some(AppTransaction(a, n, fromSession))
      case _ => throw new UnsupportedOptionException("txnAppId", s"idempotent writes need both $source, " +
        "and a non-empty txnAppId")
    }
  }

  private def fileWriterOptions(lower: Map[String, String]): Map[String, String] = {
    lower.get("maxrecordsperfile").foreach { v =>
      val n = try v.trim.toLong catch { case _: NumberFormatException => -1L }
      if (n < 0) throw new UnsupportedOptionException("maxRecordsPerFile", s"maxRecordsPerFile = '$v' must be a " +
        "non-negative integer (0: no limit)")
    }
    Seq("maxRecordsPerFile", "compression").flatMap(k => lower.get(k.toLowerCase).map(k -> _.trim)).toMap
  }


}
