package io.silt.checkpoint

import java.util.UUID

import io.silt.config.SiltSettings
import io.silt.actions._
import io.silt.features._
import io.silt.log._
import io.silt.state.{CheckpointSchema, StateReconstruction}
import io.silt.partition.PartitionValues
import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.parquet.hadoop.ParquetFileReader
import org.apache.parquet.hadoop.util.HadoopInputFile
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{coalesce, col, from_json, lit, struct, when}
import org.apache.spark.storage.StorageLevel
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.StructType

/** What a written checkpoint is made of, for `_last_checkpoint`. */
final case class WrittenCheckpoint(version: Long, actions: Long, numOfAddFiles: Long, sizeInBytes: Long,
    schema: StructType, files: Seq[Path])

/**
 * Writes checkpoints with Spark: classic single-file Parquet checkpoints (with `stats_parsed`
 * and `partitionValues_parsed`), or, under `delta.checkpointPolicy = 'v2'`, UUID-named V2
 * checkpoints whose add and remove actions live in sidecar files (several for large tables, each
 * a range of the sort order). Files are sorted by partition values and path, so that a reader's
 * row-group statistics narrow a partition's files to a few row groups. Files appear under their
 * final names by rename, so a reader never sees half a checkpoint.
 */
object CheckpointWriter {
  /** The columns of the reconciled state's rows (the other actions come from the snapshot). */
  private val StateColumns = StructType(Seq("txn", "add", "remove", "domainMetadata").map(CheckpointSchema.topLevel(v2 = false)(_)))

  def write(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint = {
    val props = TableProperties(snapshot.metadata.configuration)
    val rows = stateRows(spark, log, snapshot)
    val written = if (props.checkpointPolicy == CheckpointPolicy.V2) writeV2(spark, log, snapshot, rows, classicName = false)
      else writeClassic(spark, log, snapshot, rows)
    writeLastCheckpoint(log, written)
    written
  }

  /** A classic-named V2 checkpoint, for readers that only look for classic names. */
  def writeCompatibilityCheckpoint(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint =
    writeV2(spark, log, snapshot, stateRows(spark, log, snapshot), classicName = true)

  /**
   * The snapshot's transactions, domains, live files and unexpired tombstones as rows: from the
   * driver's file list when it holds one of at most `spark.silt.snapshot.maxDriverFiles` files (or
   * the log holds no more actions), else replayed by Spark ([[StateReconstruction]]; turning each
   * action into JSON on the driver costs more than reading the previous checkpoint again, and as
   * much heap as the list itself). The driver's replay when Spark cannot replay this log.
   */
  private def stateRows(spark: SparkSession, log: TableLog, snapshot: Snapshot): StateRows = {
    val props = TableProperties(snapshot.metadata.configuration)
    val cutoff = System.currentTimeMillis() - props.deletedFileRetentionMs
    val limit = SiltSettings.SnapshotMaxDriverFiles(spark)
    val replayed = if (snapshot.isStateLoaded && snapshot.numFiles <= limit) None
      else StateReconstruction.of(log, snapshot).filter(r => snapshot.isStateLoaded || r.estimatedActions > limit)
        .flatMap(_.rows(spark, cutoff))
    replayed.map(StateRows(_, large = true)).getOrElse {
      val tombstones = snapshot.tombstones.filter(_.deletionTimestamp.forall(_ > cutoff))
      StateRows(frame(spark, snapshot.transactions.values.toSeq ++ snapshot.domains.values ++ snapshot.files ++ tombstones,
        StateColumns), large = false)
    }
  }

  /**
   * A snapshot's state as rows; `large`: replayed by Spark, for a table whose checkpoint is worth
   * sorting (a small one's few row groups gain nothing from it, and the sort would cost a shuffle).
   */
  private final case class StateRows(df: DataFrame, large: Boolean) {
    def ordered(snapshot: Snapshot, parts: Int): DataFrame =
      if (large) sorted(df, snapshot, parts) else if (parts == 1) df else df.repartition(parts)
  }

  private def writeClassic(spark: SparkSession, log: TableLog, snapshot: Snapshot, rows: StateRows): WrittenCheckpoint = {
    val schema = CheckpointSchema.topLevel(v2 = false)
    val head = frame(spark, Seq(snapshot.protocol, snapshot.metadata), schema)
    val df = rows.copy(df = withParsedStats(head.unionByName(rows.df, allowMissingColumns = true), snapshot))
      .ordered(snapshot, parts = 1)
    val target = new Path(log.logPath, FileNames.checkpointName(snapshot.version))
    val files = writeParquet(spark, df, log.logPath, Seq(target), log.hadoopConf)
    val (actions, adds) = counts(spark, files, log)
    WrittenCheckpoint(snapshot.version, actions, adds, size(files, log), df.schema, files)
  }

  private def writeV2(spark: SparkSession, log: TableLog, snapshot: Snapshot, rows: StateRows,
      classicName: Boolean): WrittenCheckpoint = {
    // Spark's replay is used twice (sidecars, then the top-level file's transactions and domains):
    // kept on disk between them; the driver's rows are computed again for free
    val state = if (rows.large) rows.df.persist(StorageLevel.DISK_ONLY) else rows.df
    try {
      val sidecarDir = new Path(log.logPath, FileNames.SidecarDir)
      val fileRows = state.where(col("add").isNotNull || col("remove").isNotNull).select("add", "remove")
      val numFileActions = fileRows.count()
      val numSidecars = math.max(1, math.ceil(numFileActions.toDouble / SiltSettings.CheckpointFilesPerSidecar(spark)).toInt)
      val sidecarNames = (1 to numSidecars).map(_ => s"${UUID.randomUUID()}.parquet")
      val sidecarFiles = if (numFileActions == 0) Nil else writeParquet(spark,
        rows.copy(df = withParsedStats(fileRows, snapshot)).ordered(snapshot, numSidecars), sidecarDir,
        sidecarNames.map(new Path(sidecarDir, _)),
        log.hadoopConf)
      val fs = log.logPath.getFileSystem(log.hadoopConf)
      val sidecars = sidecarFiles.map { p =>
        val st = fs.getFileStatus(p)
        val node = ActionCodec.mapper.createObjectNode()
        node.put("path", p.getName).put("sizeInBytes", st.getLen).put("modificationTime", st.getModificationTime)
        UnknownAction("sidecar", node)
      }
      val nonFile = Seq(snapshot.protocol, snapshot.metadata) ++ state.where(col("txn").isNotNull ||
        col("domainMetadata").isNotNull).select("txn", "domainMetadata").toJSON.collect().map(ActionCodec.fromJson)
      val meta = ActionCodec.mapper.createObjectNode().put("version", snapshot.version)
      val top = UnknownAction("checkpointMetadata", meta) +: (nonFile ++ sidecars)
      val format = if (classicName) "parquet" else SiltSettings.CheckpointV2Format(spark)
      val name = if (classicName) FileNames.checkpointName(snapshot.version)
        else FileNames.v2CheckpointName(snapshot.version, UUID.randomUUID().toString, format)
      val target = new Path(log.logPath, name)
      val main = if (format == "json") {
        log.store.writeIfAbsent(target, top.map(ActionCodec.toJson))
        Seq(target)
      } else writeParquet(spark, frame(spark, top, CheckpointSchema.topLevel(v2 = true)), log.logPath, Seq(target), log.hadoopConf)
      val (sidecarActions, adds) = counts(spark, sidecarFiles, log)
      WrittenCheckpoint(snapshot.version, top.size + sidecarActions, adds, size(main, log), CheckpointSchema.topLevel(v2 = true), main)
    } finally if (rows.large) state.unpersist()
  }

  /**
   * The rows in the order readers prune best: protocol, metadata, transactions and domains, then
   * the files by partition values (typed, as `partitionValues_parsed` holds them), the lower bounds
   * of a clustered table's clustering columns (so that a point on them reads few row groups) and
   * path, then the tombstones; in `parts` ranges of that order (one per output file), each sorted.
   */
  private def sorted(df: DataFrame, snapshot: Snapshot, parts: Int): DataFrame = {
    val m = snapshot.metadata
    val tz = df.sparkSession.sessionState.conf.sessionLocalTimeZone
    val rank = when(col("add").isNotNull, 1).when(col("remove").isNotNull, 2).otherwise(0)
    val values = m.partitionSchema.fields.toSeq.map { f =>
      val raw = SparkInternals.expression(coalesce(col("add.partitionValues"), col("remove.partitionValues"))
        .getItem(ColumnMapping.of(m).partitionKey(f.name)))
      SparkInternals.column(PartitionValues.decode(raw, f.dataType, tz))
    }
    val stats = CheckpointSchema.statsSchema(m)
    def bounded(t: org.apache.spark.sql.types.DataType, path: Seq[String]): Boolean = (t, path) match {
      case (_, Seq()) => !t.isInstanceOf[StructType]
      case (st: StructType, name +: rest) => st.fields.find(_.name == name).exists(f => bounded(f.dataType, rest))
      case _ => false
    }
    // only the columns whose lower bounds the statistics hold
    // (a snapshot of commits alone would read its file list for its domains: its files keep path order)
    val domains = if (snapshot.isStateLoaded || snapshot.fileListOffDriver) snapshot.domains else Map.empty[String, DomainMetadata]
    val clustering = Clustering.physicalColumns(domains).getOrElse(Nil)
      .filter(bounded(stats("minValues").dataType, _))
      .map(_.foldLeft(from_json(col("add.stats"), stats).getField("minValues"))(_.getField(_)))
    // The keys are columns of their own, computed once a row: a sort evaluates its expressions at
    // every comparison, and parsing statistics there made a million files' checkpoint 8x slower.
    val keys = ((rank +: values) ++ clustering :+ coalesce(col("add.path"), col("remove.path"))).zipWithIndex
      .map { case (k, i) => s"_silt_checkpoint_key_$i" -> k }
    val keyed = keys.foldLeft(df) { case (d, (name, k)) => d.withColumn(name, k) }
    val byKeys = keys.map { case (name, _) => col(name) }
    (if (parts == 1) keyed.repartition(1) else keyed.repartitionByRange(parts, byKeys: _*)).sortWithinPartitions(byKeys: _*)
      .drop(keys.map(_._1): _*)
  }

  /**
   * (rows, add actions) of written checkpoint files: from their footers (rows, and the nulls of
   * `add.path`), or, for a file whose footer does not count those nulls, by reading that column.
   */
  private def counts(spark: SparkSession, files: Seq[Path], log: TableLog): (Long, Long) = files.map { p =>
    val footer = ParquetFileReader.open(HadoopInputFile.fromPath(p, log.hadoopConf))
    val (rows, nullPaths) = try {
      val groups = footer.getRowGroups.asScala
      val nulls = groups.map(_.getColumns.asScala.find(_.getPath.toDotString == "add.path").map(_.getStatistics)
        .filter(st => st != null && st.isNumNullsSet).map(_.getNumNulls))
      (groups.map(_.getRowCount).sum, if (nulls.forall(_.isDefined)) Some(nulls.flatten.sum) else None)
    } finally footer.close()
    (rows, nullPaths.map(rows - _).getOrElse(spark.read.parquet(p.toString).where(col("add.path").isNotNull).count()))
  }.foldLeft((0L, 0L)) { case ((a, b), (c, d)) => (a + c, b + d) }

  /** Actions as rows of the checkpoint schema: their JSON read back with that schema. */
  private def frame(spark: SparkSession, actions: Seq[Action], schema: StructType): DataFrame = {
    import spark.implicits._
    val lines = spark.createDataset(actions.map(ActionCodec.toJson))
    spark.read.schema(schema).json(lines)
  }

  /** Adds `add.stats_parsed` and `add.partitionValues_parsed` (unless the table turned it off). */
  private def withParsedStats(df: DataFrame, snapshot: Snapshot): DataFrame = {
    val m = snapshot.metadata
    if (!TableProperties(m.configuration).writeStatsAsStruct) return df
    val add = col("add")
    var parsed: Column = add.withField("stats_parsed", from_json(add.getField("stats"), CheckpointSchema.statsSchema(m)))
    if (m.partitionColumns.nonEmpty) {
      val tz = df.sparkSession.sessionState.conf.sessionLocalTimeZone
      // keyed, as the partition values are, by physical name
      val values = m.partitionSchema.fields.map { f =>
        val key = ColumnMapping.of(m).partitionKey(f.name)
        val raw = SparkInternals.expression(add.getField("partitionValues").getItem(key))
        SparkInternals.column(PartitionValues.decode(raw, f.dataType, tz)).as(key)
      }
      parsed = parsed.withField("partitionValues_parsed", struct(values.toIndexedSeq: _*))
    }
    df.withColumn("add", org.apache.spark.sql.functions.when(add.isNull, lit(null)).otherwise(parsed))
  }

  /**
   * Row groups of a checkpoint file: small enough that a reader reads a file's row groups on
   * several threads (Spark's 128 MiB would leave a million files' checkpoint in one), and that a
   * scan of a large table's partition reads few rows besides its own.
   */
  private val RowGroupBytes = 2L << 20

  /**
   * Writes `df` with Spark into a temporary folder and renames its part files to `targets` (one
   * part per target), so that each target appears whole.
   */
  private def writeParquet(spark: SparkSession, df: DataFrame, dir: Path, targets: Seq[Path],
      conf: org.apache.hadoop.conf.Configuration): Seq[Path] = {
    val tmp = new Path(dir, s"_silt_tmp_${UUID.randomUUID()}")
    val fs: FileSystem = tmp.getFileSystem(conf)
    try {
      val out = if (targets.size == 1) df.coalesce(1) else df
      out.write.option("compression", "snappy").option("parquet.block.size", RowGroupBytes.toString).parquet(tmp.toString)
      val parts = fs.listStatus(tmp).map(_.getPath).filter(_.getName.startsWith("part-")).sortBy(_.getName).toSeq
      // every part must land: a part without a target would be file actions missing from the checkpoint
      if (parts.size > targets.size) throw new IllegalStateException(s"a checkpoint was written as ${parts.size} files, " +
        s"${targets.size} expected")
      val pairs = parts.zip(targets)
      pairs.foreach { case (part, target) =>
        if (!fs.exists(target) && !fs.rename(part, target)) {
          throw new java.io.IOException(s"cannot move checkpoint file $part to $target")
        }
      }
      pairs.map(_._2)
    } finally fs.delete(tmp, true)
  }

  private def size(files: Seq[Path], log: TableLog): Long = {
    val fs = log.logPath.getFileSystem(log.hadoopConf)
    files.map(p => fs.getFileStatus(p).getLen).sum
  }

  private def writeLastCheckpoint(log: TableLog, cp: WrittenCheckpoint): Unit = {
    val node = ActionCodec.mapper.createObjectNode()
    node.put("version", cp.version)
    node.put("size", cp.actions)
    node.put("sizeInBytes", cp.sizeInBytes)
    node.put("numOfAddFiles", cp.numOfAddFiles)
    node.set[com.fasterxml.jackson.databind.JsonNode]("checkpointSchema", ActionCodec.mapper.readTree(cp.schema.json))
    log.store.overwrite(new Path(log.logPath, FileNames.LastCheckpoint), Seq(LastCheckpoint.render(node)))
  }
}
