package io.silt.config

import io.silt.errors.UnsupportedOptionException
import org.apache.spark.sql.RuntimeConfig

/**
 * Every `spark.silt.*` session setting, declared once with its type, default and documentation
 * (the settings table of docs/reference.md is checked against [[SiltSettings.all]]). A `spark.silt.*` key that
 * is not declared here is refused by name, so that a misspelt setting is never silently ignored.
 */
object SiltSettings {
  val SkippingEnabled: Setting[Boolean] = Setting.boolean("spark.silt.stats.skipping.enabled", default = true,
    "use file statistics to skip files").withDeltaKey("spark.databricks.delta.stats.skipping")

  val CommitMaxAttempts: Setting[Int] = Setting.int("spark.silt.commit.maxAttempts", 100, min = 1,
    "attempts of one commit racing other writers (each lost race checked for conflicts, then retried)")
    .withDeltaKey("spark.databricks.delta.maxCommitAttempts")

  val CommitRetryBackoffMs: Setting[Long] = Setting.long("spark.silt.commit.retryBackoffMs", Some(0L), min = 0,
    "before the n-th retry of a commit, wait this many ms x 2^(n-1) (at most x 1024), less up to half at " +
      "random so that racing writers spread out; 0 retries at once")

  val LogStoreImpl: Setting[String] = Setting.checked("spark.silt.logStore.<scheme>.impl", "by scheme",
    s"one of ${LogStoreName.All.mkString(", ")} or a class name",
    "how commits to paths of `<scheme>` are created atomically (see Object stores)") { v =>
    LogStoreName.All.exists(_.equalsIgnoreCase(v)) || v.matches("[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+")
  }

  val OptimizeMaxFileSize: Setting[Long] = Setting.bytes("spark.silt.optimize.maxFileSize", Some(1L << 30), "1g",
    "bin size of compaction; ZORDER writes about input bytes / this many files")
    .withDeltaKey("spark.databricks.delta.optimize.maxFileSize")

  val OptimizeMinFileSize: Setting[Long] = Setting.bytes("spark.silt.optimize.minFileSize", None, "= maxFileSize",
    "compaction rewrites files smaller than this").withDeltaKey("spark.databricks.delta.optimize.minFileSize")

  val OptimizeMaxDeletedRowsRatio: Setting[Double] = Setting.fraction("spark.silt.optimize.maxDeletedRowsRatio", 0.05,
    "compaction also rewrites files with more deleted rows than this")
    .withDeltaKey("spark.databricks.delta.optimize.maxDeletedRowsRatio")

  val OptimizeMaxThreads: Setting[Int] = Setting.int("spark.silt.optimize.maxThreads", 15, min = 1,
    "bins rewritten in parallel").withDeltaKey("spark.databricks.delta.optimize.maxThreads")

  val ZOrderNumRanges: Setting[Int] = Setting.int("spark.silt.optimize.zorder.numRanges", 1024, min = 2,
    "range ids per column (rounded up to a power of two)").withDeltaKey("spark.databricks.io.skipping.mdc.rangeId.max")

  val ZOrderAddNoise: Setting[Boolean] = Setting.boolean("spark.silt.optimize.zorder.addNoise", default = true,
    "spread a heavy curve cell over several files").withDeltaKey("spark.databricks.io.skipping.mdc.addNoise")
  val ZOrderCurve: Setting[String] = Setting.oneOf("spark.silt.optimize.zorder.curve", "zorder", Seq("zorder", "hilbert"),
    "the curve OPTIMIZE … ZORDER BY orders rows along (clustered tables use hilbert)")

  val RowLevelConcurrency: Setting[Boolean] = Setting.boolean("spark.silt.rowLevelConcurrency.enabled", default = true,
    "a DELETE, UPDATE or MERGE with deletion vectors that loses a race to a commit which deleted other rows of " +
      "the same files commits on top of it (the deletion vectors united) instead of failing; a row both change " +
      "still conflicts. A DELETE, UPDATE or MERGE tests the rows of a concurrent commit's new files against its own " +
      "condition where their statistics cannot rule it out, and conflicts only if one matches")

  val RowLevelConcurrencyMaxCheckedRows: Setting[Long] = Setting.long("spark.silt.rowLevelConcurrency.maxCheckedRows",
    Some(10000000L), min = 0, "with row-level concurrency, the most rows of one concurrent commit's new files that " +
      "a DELETE, UPDATE or MERGE reads to test them against its own condition, where their statistics cannot rule it " +
      "out; past it (or 0) such a file conflicts (ConcurrentAppendException), as in Delta Lake")

  val DeleteSpeculativeRewrite: Setting[Boolean] = Setting.boolean("spark.silt.delete.speculativeRewrite.enabled",
    default = true, "a copy-on-write DELETE that removes rows from every file of a small sample of the files it may " +
      "touch rewrites them all in one pass, without first finding each file it touches (a file that loses no row " +
      "is then rewritten unchanged)")

  val OptimizeWriteEnabled: Setting[Boolean] = Setting.booleanOrComputed("spark.silt.optimizeWrite.enabled",
    "(the table's)", "shuffle written rows by partition into files near the bin size (a write's option " +
      "optimizeWrite wins; unset, the table property delta.autoOptimize.optimizeWrite says)")
    .withDeltaKey("spark.databricks.delta.optimizeWrite.enabled")

  val OptimizeWriteBinSize: Setting[Long] = Setting.long("spark.silt.optimizeWrite.binSize", Some(512L), min = 1,
    "MiB of data an optimized write gathers into one task (so about one file); under Delta Lake's name a byte size, " +
      "as Delta Lake takes it (536870912, 512m)")
    .withDeltaKey("spark.databricks.delta.optimizeWrite.binSize",
      Some(DeltaUnit(v => ByteSize.parse(v).map(bytes => math.max(1L, (bytes + (1L << 20) - 1) >> 20)),
        "a byte size (e.g. 536870912, 512m)")))

  val AutoCompactEnabled: Setting[Boolean] = Setting.booleanOrComputed("spark.silt.autoCompact.enabled",
    "(the table's)", "after a commit that adds files, compact the small files of the partitions it wrote to (unset, the " +
      "table property delta.autoOptimize.autoCompact says)").withDeltaKey("spark.databricks.delta.autoCompact.enabled")

  val AutoCompactMinNumFiles: Setting[Int] = Setting.int("spark.silt.autoCompact.minNumFiles", 50, min = 1,
    "auto compaction runs on a partition holding at least this many small files")
    .withDeltaKey("spark.databricks.delta.autoCompact.minNumFiles")

  val AutoCompactMaxFileSize: Setting[Long] = Setting.bytes("spark.silt.autoCompact.maxFileSize", Some(128L << 20),
    "128m", "the size of the files auto compaction writes").withDeltaKey("spark.databricks.delta.autoCompact.maxFileSize")

  val AutoCompactMinFileSize: Setting[Long] = Setting.bytes("spark.silt.autoCompact.minFileSize", None,
    "= maxFileSize / 2", "files smaller than this are small to auto compaction")
    .withDeltaKey("spark.databricks.delta.autoCompact.minFileSize")

  val DvInlineThreshold: Setting[Int] = Setting.int("spark.silt.deletionVectors.inlineThreshold", 0, min = 0,
    "DVs up to this many bytes are stored inline in the log")

  val CheckpointFailOnError: Setting[Boolean] = Setting.boolean("spark.silt.checkpoint.failOnError", default = false,
    "a failing checkpoint fails the commit (tests) instead of a warning")
    .withDeltaKey("spark.databricks.delta.checkpoint.exceptionThrowing.enabled")

  val PostCommitHookThrowOnError: Setting[Boolean] = Setting.boolean("spark.silt.postCommitHook.throwOnError",
    default = false, "a failing auto compaction after a commit fails the statement, naming the committed version, " +
      "instead of a warning (a symlink manifest's failure always does; a checkpoint's under checkpoint.failOnError)")
    .withDeltaKey("spark.databricks.delta.postCommitHook.throwOnError")

  val UniformSyncConversion: Setting[Boolean] = Setting.boolean("spark.silt.uniform.iceberg.syncConversion",
    default = false, "a UniForm table's Iceberg metadata is written before the statement returns, instead of in " +
      "the background after the commit (one conversion at a time per table; the JVM's exit waits for it)")
    .withDeltaKey("spark.databricks.delta.uniform.iceberg.sync.convert.enabled")

  val CheckpointV2Format: Setting[String] = Setting.oneOf("spark.silt.checkpoint.v2.format", "parquet",
    Seq("parquet", "json"), "`json` for JSON V2 checkpoints")
    .withDeltaKey("spark.databricks.delta.checkpointV2.topLevelFileFormat")

  val CheckpointFilesPerSidecar: Setting[Long] = Setting.long("spark.silt.checkpoint.v2.filesPerSidecar",
    Some(100000L), min = 1, "file actions per sidecar file")

  val SnapshotMaxDriverFiles: Setting[Long] = Setting.long("spark.silt.snapshot.maxDriverFiles", Some(200000L), min = 0,
    "a table whose checkpoint holds more files keeps no file list on the driver: scans and the writes that read " +
      "some partitions read the files they need from the checkpoint's row groups, commits build on the checkpoint, " +
      "and CHECKPOINT and VACUUM run as Spark jobs replaying the log; a table whose commits after its checkpoint (all " +
      "its commits, without one) add or remove more (by their bytes, about 350 a file) is opened from their other " +
      "actions and scanned from a Spark job's replay, kept in Spark's cache")

  val LogCompactionReads: Setting[Boolean] = Setting.boolean("spark.silt.log.compaction.useForReads", default = true,
    "replay a run of commits from its log compaction file (`<x>.<y>.compacted.json`) when there is one")
    .withDeltaKey("spark.databricks.delta.deltaLog.minorCompaction.useForReads")

  val LogCompactionInterval: Setting[Int] = Setting.intOrOff("spark.silt.log.compaction.interval", min = 2,
    "after each commit whose version + 1 is a multiple of this, write the log compaction of the commits since the " +
      "last multiple, as Delta Kernel's `logCompactionInterval` does; 0: never")

  val VacuumRetentionCheck: Setting[Boolean] = Setting.boolean("spark.silt.vacuum.retentionDurationCheck.enabled",
    default = true, "refuse a VACUUM retention below the table's")
    .withDeltaKey("spark.databricks.delta.retentionDurationCheck.enabled")

  val TimeTravelRetentionCheck: Setting[Boolean] = Setting.booleanByDeltaRelease("spark.silt.timeTravel.retentionCheck.enabled",
    onSpark4 = true, onSpark35 = false, "refuse time travel (reads, RESTORE, change feed reads) to a version committed longer ago than the " +
      "table's delta.deletedFileRetentionDuration, whose files VACUUM may have deleted, as Delta Lake does")
    .withDeltaKey("spark.databricks.delta.vacuum.enforceTimeTravelWithinDeletedFileRetentionDuration")

  val ChangeFeedTimestampOutOfRange: Setting[Boolean] = Setting.boolean(
    "spark.silt.changeDataFeed.timestampOutOfRange.enabled", default = false, "a change feed read whose endingTimestamp " +
      "is after the latest commit reads up to it, and one whose startingTimestamp is reads no rows (false: both refused, " +
      "as Delta Lake refuses them)").withDeltaKey("spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled")

  val UtcTimestampPartitionValues: Setting[Boolean] = Setting.boolean("spark.silt.write.utcTimestampPartitionValues",
    default = true, "write a TIMESTAMP partition value as its instant in UTC (2024-01-02T03:04:05.000000Z), as Delta Lake " +
      "does; false: in the session's time zone (2024-01-02 03:04:05). Readers take both")
    .withDeltaKey("spark.databricks.delta.write.utcTimestampPartitionValues")

  val ChangeFeedAcrossRenames: Setting[Boolean] = Setting.boolean(
    "spark.silt.changeDataFeed.unsafeBatchReadOnIncompatibleSchemaChanges.enabled", default = false,
    "a batch change feed read across a column renamed or dropped (column mapping) reads every version with the " +
      "schema of its last; false: refused, as Delta Lake refuses it")
    .withDeltaKey("spark.databricks.delta.changeDataFeed.unsafeBatchReadOnIncompatibleSchemaChanges.enabled")

  val RetentionCompatibilityCheck: Setting[Boolean] = Setting.booleanByDeltaRelease(
    "spark.silt.properties.retentionCompatibilityCheck.enabled", onSpark4 = true, onSpark35 = false,
    "refuse table properties that make delta.logRetentionDuration shorter than delta.deletedFileRetentionDuration")
    .withDeltaKey("spark.databricks.delta.vacuum.enforceDeletedFileAndLogRetentionDurationCompatibility")

  val VacuumRetentionWindowIgnore: Setting[Boolean] = Setting.booleanByDeltaRelease(
    "spark.silt.vacuum.retentionWindowIgnore.enabled", onSpark4 = true, onSpark35 = false,
    "VACUUM … RETAIN n HOURS with n other than 0 keeps the table's delta.deletedFileRetentionDuration " +
      "instead (with a warning), as Delta Lake 4.4 does; false: RETAIN n HOURS is the retention (as Delta Lake 3.3)")
    .withDeltaKey("spark.databricks.delta.vacuum.retentionWindowIgnore.enabled")

  val ConvertUseMetadataLog: Setting[Boolean] = Setting.boolean("spark.silt.convert.useMetadataLog", default = true,
    "CONVERT TO DELTA of a folder a streaming query wrote (with `_spark_metadata/`) takes its files from that log, " +
      "which Silt does not read: such a folder is refused; false: every Parquet file listed in the folder is taken")
    .withDeltaKey("spark.databricks.delta.convert.useMetadataLog")

  val ConvertUseCatalogSchema: Setting[Boolean] = Setting.boolean("spark.silt.convert.useCatalogSchema", default = true,
    "CONVERT TO DELTA of a catalog table whose catalog columns differ from its files' footers is refused (Delta Lake " +
      "takes the catalog's; Silt can only take the footers'); false: the footers' columns are taken")
    .withDeltaKey("spark.databricks.delta.convert.useCatalogSchema")

  val VacuumLogging: Setting[Boolean] = Setting.booleanOrComputed("spark.silt.vacuum.logging.enabled",
    "by store", "record VACUUM START and VACUUM END commits; unset, as Delta Lake does: on file, hdfs, gs, abfs(s), " +
      "wasb(s) and adl paths, not on s3/s3a nor others").withDeltaKey("spark.databricks.delta.vacuum.logging.enabled")

  val AllowFilesOutsideTable: Setting[Boolean] = Setting.boolean("spark.silt.read.allowFilesOutsideTable",
    default = true, "read logs whose add actions or DVs name files outside the table directory (shallow clones), as " +
      "Delta Lake does; `false` refuses them as corrupt (a relative path climbing out with `..` always is)")

  val TxnAppId: Setting[String] = Setting.string("spark.silt.write.txnAppId",
    "idempotent writes for the session's writes (with the next)").withDeltaKey("spark.databricks.delta.write.txnAppId")

  val TxnVersion: Setting[Long] = Setting.long("spark.silt.write.txnVersion", None, min = 0,
    "the version of the session's next idempotent write (see the next)")
    .withDeltaKey("spark.databricks.delta.write.txnVersion")

  val TxnVersionAutoReset: Setting[Boolean] = Setting.boolean("spark.silt.write.txnVersion.autoReset.enabled",
    default = true, "clear txnVersion after the write that used it (committed or skipped); unset, a txnVersion set " +
      "under Delta Lake's name is kept, as Delta Lake keeps it")
    .withDeltaKey("spark.databricks.delta.write.txnVersion.autoReset.enabled")

  val UserMetadata: Setting[String] = Setting.string("spark.silt.commitInfo.userMetadata",
    "`userMetadata` of every commit of the session (a write's option wins)")
    .withDeltaKey("spark.databricks.delta.commitInfo.userMetadata")

  val SchemaAutoMerge: Setting[Boolean] = Setting.boolean("spark.silt.schema.autoMerge.enabled", default = false,
    "add the new columns of written data (as the write option `mergeSchema`) and of MERGE sources (as MERGE WITH " +
      "SCHEMA EVOLUTION)").withDeltaKey("spark.databricks.delta.schema.autoMerge.enabled")

  val ReplaceWhereConstraintCheck: Setting[Boolean] = Setting.boolean(
    "spark.silt.replaceWhere.constraintCheck.enabled", default = true,
    "refuse a replaceWhere write whose rows do not all match its predicate (false: write them all)")
    .withDeltaKey("spark.databricks.delta.replaceWhere.constraintCheck.enabled")

  val ReplaceWhereDataColumns: Setting[Boolean] = Setting.boolean("spark.silt.replaceWhere.dataColumns.enabled",
    default = true, "let a replaceWhere predicate use data columns (rows replaced one by one), not only partition " +
      "columns (whole files)").withDeltaKey("spark.databricks.delta.replaceWhere.dataColumns.enabled")

  val CatalogUpdate: Setting[Boolean] = Setting.boolean("spark.silt.catalog.update.enabled", default = false,
    "keep a catalog table's columns and properties in its catalog entry, updated after each commit that changes " +
      "them (off: a new table's entry has neither, as Delta Lake registers it; the log has them)")
    .withDeltaKey("spark.databricks.delta.catalog.update.enabled")

  val CatalogUpdateTruncation: Setting[Long] = Setting.long("spark.silt.catalog.update.longFieldTruncationThreshold",
    Some(4000L), min = 0, "a catalog entry gets no columns when one column's type is longer than this many " +
      "characters (its property delta.catalogUpdateError says why)")
    .withDeltaKey("spark.databricks.delta.catalog.update.longFieldTruncationThreshold")

  val LastCommitVersionInSession: Setting[Long] = Setting.long("spark.silt.lastCommitVersionInSession", None,
    min = 0, "the version the session's last commit made (of whichever table), set by Silt after each commit, " +
      "as Delta Lake sets it: a program reads it, and a value set by hand changes nothing")
    .withDeltaKey("spark.databricks.delta.lastCommitVersionInSession")

  val PropertyDefaults: Setting[String] = Setting.string("spark.silt.properties.defaults.<name>",
    "table property `delta.<name>` of the tables the session creates, unless they are given one " +
      "(`minReaderVersion`, `minWriterVersion`, `feature.<feature>`: their protocol)")
    .withDeltaKey("spark.databricks.delta.properties.defaults.<name>")

  val DeltaNamesEnabled: Setting[Boolean] = Setting.boolean("spark.silt.deltaNames.enabled", default = true,
    "serve Delta Lake's names (format(\"delta\"), USING delta, delta.`path`, catalog tables of provider delta) " +
      "when delta-spark is not on the classpath")

  val all: Seq[Setting[_]] = Seq(SkippingEnabled, CommitMaxAttempts, CommitRetryBackoffMs, RowLevelConcurrency,
    RowLevelConcurrencyMaxCheckedRows, DeleteSpeculativeRewrite,
    LogStoreImpl, OptimizeMaxFileSize, OptimizeMinFileSize, OptimizeMaxDeletedRowsRatio, OptimizeMaxThreads,
    ZOrderNumRanges, ZOrderAddNoise, ZOrderCurve, OptimizeWriteEnabled, OptimizeWriteBinSize, AutoCompactEnabled,
    AutoCompactMinNumFiles, AutoCompactMaxFileSize, AutoCompactMinFileSize, DvInlineThreshold, CheckpointFailOnError, PostCommitHookThrowOnError,
    UniformSyncConversion,
    CheckpointV2Format, CheckpointFilesPerSidecar, SnapshotMaxDriverFiles, LogCompactionReads, LogCompactionInterval, VacuumRetentionCheck,
    VacuumRetentionWindowIgnore, VacuumLogging, ConvertUseMetadataLog, ConvertUseCatalogSchema, RetentionCompatibilityCheck,
    TimeTravelRetentionCheck, ChangeFeedTimestampOutOfRange, UtcTimestampPartitionValues,
    ChangeFeedAcrossRenames, AllowFilesOutsideTable,
    TxnAppId, TxnVersion, TxnVersionAutoReset, UserMetadata, SchemaAutoMerge, ReplaceWhereConstraintCheck,
    ReplaceWhereDataColumns, CatalogUpdate, CatalogUpdateTruncation, LastCommitVersionInSession, PropertyDefaults,
    DeltaNamesEnabled)

  private val Prefix = "spark.silt."
  private val declared = all.map(_.key).toSet

  /** The properties of a table the session creates: `delta.<name>` for each default set (under either name). */
  def propertyDefaults(conf: RuntimeConfig): Map[String, String] =
    PropertyDefaults.byPart(conf, keepCase = true).map { case (name, v) => s"delta.$name" -> v }

  /**
   * Refuses a `spark.silt.*` key set in the session that no setting declares, and a declared one
   * whose value does not parse, naming it; checks Delta Lake's keys ([[DeltaSessionKeys.check]]).
   */
  def checkSession(conf: RuntimeConfig): Unit = {
    val set = conf.getAll.filter(_._1.toLowerCase.startsWith(Prefix))
    // Spark's settings are case-sensitive: a key in another case would be silently ignored.
    set.keys.find(k => !declared(k) && !all.exists(_.matches(k))).foreach { k =>
      val detail = all.find(_.key.equalsIgnoreCase(k)).map(s => s"setting $k is spelt ${s.key}")
        .getOrElse(s"unknown setting $k; Silt's settings are ${all.map(_.key).mkString(", ")}")
      throw new UnsupportedOptionException(k, detail)
    }
    all.foreach(_.option(conf))
    all.foreach(_.byPart(conf))
    // With delta-spark loaded, Delta Lake's settings are Delta Lake's own (for its tables).
    DeltaSessionKeys.check(conf)
  }
}
