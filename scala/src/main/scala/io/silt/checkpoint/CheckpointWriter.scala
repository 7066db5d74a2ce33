package io.silt.checkpoint

import java.util.UUID

import io.silt.config.SiltSettings
import io.silt.actions._
import io.silt.features._
import io.silt.log._
import io.silt.partition.PartitionValues
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions.{col, from_json, lit, struct}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.StructType

/** What a written checkpoint is made of, for `_last_checkpoint`. */
final case class WrittenCheckpoint(version: Long, actions: Long, numOfAddFiles: Long, sizeInBytes: Long,
    schema: StructType, files: Seq[Path])

/**
 * Writes checkpoints with Spark: classic single-file Parquet checkpoints (with `stats_parsed`
 * and `partitionValues_parsed`), or, under `delta.checkpointPolicy = 'v2'`, UUID-named V2
 * checkpoints whose add and remove actions live in sidecar files (several for large tables).
 * Files appear under their final names by rename, so a reader never sees half a checkpoint.
 */
object CheckpointWriter {
  def write(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint = {
    val props = TableProperties(snapshot.metadata.configuration)
    val now = System.currentTimeMillis()
    val tombstones = snapshot.tombstones.filter(_.deletionTimestamp.forall(_ > now - props.deletedFileRetentionMs))
    val nonFile: Seq[Action] = Seq(snapshot.protocol, snapshot.metadata) ++ snapshot.transactions.values ++
      snapshot.domains.values.filterNot(_.removed)
    val fileActions: Seq[Action] = snapshot.files ++ tombstones
    val written = if (props.checkpointPolicy == CheckpointPolicy.V2) writeV2(spark, log, snapshot, nonFile, fileActions, classicName = false)
      else writeClassic(spark, log, snapshot, nonFile ++ fileActions)
    writeLastCheckpoint(log, written)
    written
  }

  /** A classic-named V2 checkpoint, for readers that only look for classic names. */
  def writeCompatibilityCheckpoint(spark: SparkSession, log: TableLog, snapshot: Snapshot): WrittenCheckpoint = {
    val nonFile: Seq[Action] = Seq(snapshot.protocol, snapshot.metadata) ++ snapshot.transactions.values ++
      snapshot.domains.values.filterNot(_.removed)
    writeV2(spark, log, snapshot, nonFile, snapshot.files, classicName = true)
  }

  private def writeClassic(spark: SparkSession, log: TableLog, snapshot: Snapshot, actions: Seq[Action]): WrittenCheckpoint = {
    val schema = CheckpointSchema.topLevel(v2 = false)
    val df = withParsedStats(frame(spark, actions, schema), snapshot)
    val target = new Path(log.logPath, FileNames.checkpointName(snapshot.version))
    val files = writeParquet(spark, df, log.logPath, Seq(target), log.hadoopConf)
    WrittenCheckpoint(snapshot.version, actions.size, snapshot.files.size, size(files, log), df.schema, files)
  }

  private def writeV2(spark: SparkSession, log: TableLog, snapshot: Snapshot, nonFile: Seq[Action],
      fileActions: Seq[Action], classicName: Boolean): WrittenCheckpoint = {
    val sidecarDir = new Path(log.logPath, FileNames.SidecarDir)
    val perSidecar = SiltSettings.CheckpointFilesPerSidecar(spark)
    val numSidecars = math.max(1, math.ceil(fileActions.size.toDouble / perSidecar).toInt)
    val sidecarNames = (1 to numSidecars).map(_ => s"${UUID.randomUUID()}.parquet")
    val sidecarFrame = withParsedStats(frame(spark, fileActions, StructType(Seq(
      CheckpointSchema.topLevel(v2 = false)("add"), CheckpointSchema.topLevel(v2 = false)("remove")))), snapshot)
    val sidecarFiles = if (fileActions.isEmpty) Nil else writeParquet(spark,
      sidecarFrame.repartition(numSidecars), sidecarDir, sidecarNames.map(new Path(sidecarDir, _)), log.hadoopConf)
    val fs = log.logPath.getFileSystem(log.hadoopConf)
    val sidecars = sidecarFiles.map { p =>
      val st = fs.getFileStatus(p)
      val node = ActionCodec.mapper.createObjectNode()
      node.put("path", p.getName).put("sizeInBytes", st.getLen).put("modificationTime", st.getModificationTime)
      UnknownAction("sidecar", node)
    }
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
    WrittenCheckpoint(snapshot.version, (top ++ fileActions).size.toLong, snapshot.files.size, size(main, log),
      CheckpointSchema.topLevel(v2 = true), main)
  }

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
   * several threads (Spark's 128 MiB would leave a million files' checkpoint in one).
   */
  private val RowGroupBytes = 8L << 20

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
