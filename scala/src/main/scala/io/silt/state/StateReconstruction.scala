package io.silt.state

import scala.util.control.NonFatal

import io.silt.actions.ParquetActionRows
import io.silt.config.TableFileSystem
import io.silt.log._
import io.silt.logstore.StorageFailure
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.types.StructType

/**
 * A snapshot's reconciled file actions, transactions and domains as checkpoint rows, replayed by a
 * Spark job from the newest checkpoint at or before it and the commits after that (all commits when
 * there is none): what the checkpoint of a table whose file list is not on the driver is written
 * from, so that the driver never holds it. Files are keyed as the driver's replay keys them
 * ([[FileKeys]] and the deletion vector's unique id); of one key's actions, the newest version's
 * wins (an add over a remove in the same version, a commit's actions having no order).
 */
object StateReconstruction extends Logging {
  private val Columns = Seq("txn", "add", "remove", "domainMetadata")
  private val Schema = StructType(Columns.map(CheckpointSchema.topLevel(v2 = false)(_)))

  /** What a replay of a snapshot reads: its newest checkpoint and the commits after it; None when a commit is missing. */
  final case class Replay(log: TableLog, checkpoint: Option[CheckpointInstance], commits: Seq[Path]) {
    private lazy val sidecars = checkpoint.toSeq.flatMap(CheckpointReader.sidecarsOf(log.store, log.logPath, _))
    private lazy val parquet = checkpoint.toSeq.flatMap(c => if (c.kind == CheckpointKind.V2("json")) Nil else c.files.map(_.getPath)) ++
      sidecars

    /** About how many actions the replay reads: the checkpoint's rows (from footers) and the commits' bytes over `SnapshotLoader.BytesPerFileAction`. */
    def estimatedActions: Long = {
      val fs = log.logPath.getFileSystem(log.hadoopConf)
      parquet.map(p => ParquetActionRows.pieces(p, log.hadoopConf, 1).map(_.rows).sum).sum +
        commits.map(p => fs.getFileStatus(p).getLen).sum / SnapshotLoader.BytesPerFileAction
    }

    /**
     * The rows (columns txn, add, remove, domainMetadata), without removes deleted at or before
     * `tombstoneCutoff` nor removed domains; None when a checkpoint keeps its statistics only in
     * typed form (its rows would lose them) or cannot be decoded by Spark (a storage error fails instead: the driver would read it whole).
     */
    def rows(spark: SparkSession, tombstoneCutoff: Long): Option[DataFrame] = {
      val options = TableFileSystem.optionsFor(spark, log.tablePath)
      val fromCheckpoint = try checkpoint.map(c => checkpointRows(spark, c, parquet, options)) catch {
        case NonFatal(e) if StorageFailure.of(e).isEmpty =>
          logWarning(s"Silt: cannot replay ${checkpoint.get} of ${log.tablePath} with Spark; the driver replays it: ${e.getMessage}")
          return None
      }
      if (fromCheckpoint.exists(_.isEmpty)) return None
      val fromCommits = if (commits.isEmpty) None else Some(spark.read.options(options).schema(Schema)
        .option("mode", "FAILFAST").json(commits.map(_.toString): _*)
        .withColumn("version", regexp_extract(col("_metadata.file_name"), """^(\d+)\.json$""", 1).cast("long")))
      // The checkpoint's keys are unique already: only the commits' are reconciled, and a key they
      // hold replaces the checkpoint's row (no shuffle of the checkpoint by key for the few it has).
      val base = fromCheckpoint.flatten.map(c => keyed(c).drop("version"))
      val tail = fromCommits.map(c => latest(keyed(c)))
      val merged = (base, tail) match {
        case (Some(b), Some(t)) => b.join(t.select("key"), Seq("key"), "left_anti").unionByName(t)
        case (b, t) => b.orElse(t).get
      }
      Some(merged.where(col("remove").isNull || col("remove.deletionTimestamp").isNull ||
          col("remove.deletionTimestamp") > tombstoneCutoff)
        .where(col("domainMetadata").isNull || !coalesce(col("domainMetadata.removed"), lit(false)))
        .select(Columns.map(col): _*))
    }

    private def checkpointRows(spark: SparkSession, cp: CheckpointInstance, parquet: Seq[Path],
        options: Map[String, String]): Option[DataFrame] = {
      val statsOnlyTyped = parquet.exists { p =>
        val schema = ParquetActionRows.pieces(p, log.hadoopConf, 1).head.fileSchema
        schema.containsPath(Array("add", "stats_parsed")) && !schema.containsPath(Array("add", "stats"))
      }
      if (statsOnlyTyped) return None
      val reader = spark.read.options(options).schema(Schema)
      val json = if (cp.kind == CheckpointKind.V2("json")) cp.files.map(_.getPath.toString) else Nil
      val frames = (if (parquet.isEmpty) Nil else Seq(reader.parquet(parquet.map(_.toString): _*))) ++
        (if (json.isEmpty) Nil else Seq(reader.option("mode", "FAILFAST").json(json: _*)))
      Some(frames.reduce(_ unionByName _).withColumn("version", lit(cp.version)))
    }

    /** The rows that are actions of a file, transaction or domain, with their replay key (`key`). */
    private def keyed(all: DataFrame): DataFrame = {
      val keys = new FileKeys(log.tablePath.toUri.toString)
      val fileKey = udf((path: String) => keys.of(path))
      def dvId(dv: Column): Column = concat(coalesce(dv.getField("storageType"), lit("")),
        coalesce(dv.getField("pathOrInlineDv"), lit("")), coalesce(concat(lit("@"), dv.getField("offset").cast("string")), lit("")))
      def file(c: Column): Column = concat(lit("f"), fileKey(c.getField("path")), lit("\u0000"), dvId(c.getField("deletionVector")))
      val key = coalesce(when(col("add").isNotNull, file(col("add"))), when(col("remove").isNotNull, file(col("remove"))),
        when(col("txn").isNotNull, concat(lit("t"), col("txn.appId"))),
        when(col("domainMetadata").isNotNull, concat(lit("d"), col("domainMetadata.domain"))))
      all.withColumn("key", key).where(col("key").isNotNull)
    }

    /** Of each key's rows, the newest version's (an add's over a remove's in one version). */
    private def latest(rows: DataFrame): DataFrame = {
      val order = col("version") * 2 + when(col("add").isNotNull, 1).otherwise(0)
      rows.groupBy(col("key"))
        .agg(max_by(struct(Columns.map(col): _*), order).as("action"))
        .select(col("key") +: Columns.map(c => col(s"action.$c").as(c)): _*)
    }
  }

  /** The replay of `snapshot` from its newest checkpoint; None when a commit it needs is not listed. */
  def of(log: TableLog, snapshot: Snapshot): Option[Replay] = {
    val listing = log.listing()
    val cp = listing.checkpoints.find(_.version <= snapshot.version)
    val commits = (cp.map(_.version + 1).getOrElse(0L) to snapshot.version).map(v => listing.commit(v).map(_.file.getPath))
    if (commits.exists(_.isEmpty)) None else Some(Replay(log, cp, commits.flatten))
  }
}
