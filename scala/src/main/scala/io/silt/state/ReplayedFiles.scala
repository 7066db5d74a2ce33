package io.silt.state

import java.lang.ref.Cleaner

import io.silt.actions.{ActionCodec, AddFile, Metadata}
import io.silt.features.ColumnMapping
import io.silt.log.{CheckpointInstance, DistributedFiles, DistributedReplay, TableLog}
import io.silt.partition.{PartitionPredicates, PartitionValues}
import io.silt.spark.JobDescription
import io.silt.stats.{DataSkipping, FileStats}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{And, AttributeReference, Expression, PlanExpression}
import org.apache.spark.sql.functions._
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.TimestampType
import org.apache.spark.storage.StorageLevel

/**
 * A snapshot's live files replayed by Spark ([[StateReconstruction]]) once, when a scan first needs
 * them, and kept in Spark's cache (memory, else disk) while the snapshot is in use, as Delta Lake
 * keeps its state: a scan's partition filters and statistics are tested in the executors, and the
 * driver receives the files they keep and tests them again as it would its file list.
 */
final class ReplayedFiles private[state] (spark: SparkSession, rows: DataFrame, metadata: Metadata, description: String)
    extends DistributedFiles {
  import ReplayedFiles._

  // Each add's partition values typed by the one decoder (as a file-list scan's are) in the zone of
  // the scan that caches them, so that its partition filters run as Spark expressions; `_exact`:
  // every value found under its exact key and decoded (others are tested on the driver alone). Its
  // statistics, size and the rest of it as JSON.
  private lazy val cached: (DataFrame, String) = {
    val zone = spark.sessionState.conf.sessionLocalTimeZone
    val mapping = ColumnMapping.of(metadata)
    val raw = metadata.partitionSchema.fields.toSeq.map(f => col("add.partitionValues").getItem(mapping.partitionKey(f.name)))
    val typed = metadata.partitionSchema.fields.toSeq.zip(raw).map { case (f, r) =>
      SparkInternals.column(PartitionValues.decode(SparkInternals.expression(r), f.dataType, zone))
    }
    val decoded = raw.zip(typed).map { case (r, t) => r.isNotNull && (r === lit("") || t.isNotNull) }
    val exact = coalesce(decoded.foldLeft(size(col("add.partitionValues")) === lit(raw.size))(_ && _), lit(false))
    val columns = typed.zipWithIndex.map { case (t, i) => t.as(s"$PartitionColumn$i") } ++ Seq(exact.as("_exact"),
      col("add.partitionValues").as("partitionValues"), col("add.stats").as("stats"), col("add.size").as("size"),
      to_json(struct(col("add").dropFields("stats").as("add"))).as("json"))
    val frame = rows.where(col("add").isNotNull).select(columns: _*).persist(StorageLevel.MEMORY_AND_DISK)
    cleaner.register(this, new Unpersist(frame))
    (frame, zone)
  }

  private def job[A](what: String)(f: => A): A = JobDescription(spark, s"Silt: $what of $description")(f)

  def files(partitionPredicates: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata, timeZone: String)(
      keep: () => AddFile => Boolean): IndexedSeq[AddFile] = {
    val (frame, zone) = cached
    // a filter holding a subquery's plan (dynamic partition pruning) is tested on the driver alone
    def shipped(filters: Seq[Expression]) = filters.filterNot(_.exists(_.isInstanceOf[PlanExpression[_]]))
    val (onPartitions, onStatistics) = (shipped(partitionPredicates), shipped(dataFilters))
    val test = new Test(onPartitions, onStatistics, metadata, timeZone)
    val partitions = if (onPartitions.isEmpty) None else Some {
      // a timestamp decoded in another zone than the scan's: its values are tested as the file list's are
      if (zone != timeZone && metadata.partitionSchema.exists(_.dataType == TimestampType)) {
        udf((values: scala.collection.Map[String, String]) => test.inPartitions(values)).apply(col("partitionValues"))
      } else !col("_exact") || onTypedColumns(onPartitions.reduce(And))
    }
    val statistics = if (onStatistics.isEmpty) None else Some(udf((stats: String) => test.mayMatch(stats)).apply(col("stats")))
    val kept = job("the files a scan reads") {
      (partitions ++ statistics).foldLeft(frame)(_ where _).select("json", "stats").collect()
    }
    val accept = keep()
    kept.iterator.map(r => ActionCodec.fromJson(r.getString(0)).asInstanceOf[AddFile].copy(stats = Option(r.getString(1))))
      .filter(accept).toIndexedSeq
  }

  /** A predicate on partition columns as one on the typed columns the cache holds. */
  private def onTypedColumns(predicate: Expression): Column = {
    val names = metadata.partitionSchema.fieldNames
    SparkInternals.column(predicate.transform {
      case a: AttributeReference =>
        val i = names.indexWhere(_.equalsIgnoreCase(a.name))
        if (i < 0) throw new IllegalArgumentException(s"${a.name} is not a partition column")
        UnresolvedAttribute(Seq(s"$PartitionColumn$i"))
    })
  }

  lazy val numFiles: Long = job("the number of files")(cached._1.count())

  lazy val sizeInBytes: Long = job("the bytes of the files") {
    Option(cached._1.agg(sum(col("size"))).head().get(0)).map(_.asInstanceOf[Number].longValue).getOrElse(0L)
  }
}

/** Registered in `META-INF/services/io.silt.log.DistributedReplay`: the log's replays of large commits. */
final class ReplayedFilesReplay extends DistributedReplay {
  def files(log: TableLog, version: Long, metadata: Metadata, checkpoint: Option[CheckpointInstance],
      commits: Seq[Path]): Option[DistributedFiles] =
    SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession).flatMap { spark =>
      StateReconstruction.Replay(log, checkpoint, commits).rows(spark, Long.MaxValue)
        .map(rows => new ReplayedFiles(spark, rows, metadata, s"${log.tablePath} at version $version"))
    }
}

private object ReplayedFiles {
  private val cleaner = Cleaner.create()
  private val PartitionColumn = "_p"

  /** Frees a replay's cache once its snapshot is gone (it must not hold the replay, or it never would be). */
  private final class Unpersist(cached: DataFrame) extends Runnable {
    def run(): Unit = cached.unpersist(blocking = false)
  }

  /** A scan's partition and statistics tests of a cached file, made once in each task that runs them. */
  private final class Test(partitionPredicates: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata,
      timeZone: String) extends Serializable {
    @transient private lazy val matcher = PartitionPredicates.matcher(partitionPredicates, metadata.partitionSchema, timeZone)
    @transient private lazy val parse = FileStats.parserFor(metadata)

    def inPartitions(values: scala.collection.Map[String, String]): Boolean =
      matcher(AddFile("", if (values == null) Map.empty else values.toMap, 0L, 0L, dataChange = false))

    def mayMatch(stats: String): Boolean = DataSkipping.mayMatch(dataFilters, parse(Option(stats)))
  }
}
