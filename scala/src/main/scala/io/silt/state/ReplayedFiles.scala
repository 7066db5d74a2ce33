package io.silt.state

import java.lang.ref.Cleaner

import io.silt.actions.{ActionCodec, AddFile, Metadata}
import io.silt.log.{CheckpointInstance, DistributedFiles, DistributedReplay, TableLog}
import io.silt.partition.PartitionPredicates
import io.silt.stats.{DataSkipping, FileStats}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.functions.{col, struct, sum, to_json}
import org.apache.spark.storage.StorageLevel

/**
 * A snapshot's live files replayed by Spark ([[StateReconstruction]]) once, when a scan first needs
 * them, and kept in Spark's cache (memory, else disk) while the snapshot is in use, as Delta Lake
 * keeps its state: a scan's partition filters and statistics are tested in the executors, and the
 * driver receives the files they keep.
 */
final class ReplayedFiles private[state] (spark: SparkSession, rows: DataFrame, description: String) extends DistributedFiles {
  // per add: its partition values, statistics and size, and the whole action as JSON for the driver
  private lazy val adds: DataFrame = {
    val cached = rows.where(col("add").isNotNull)
      .select(col("add.partitionValues"), col("add.stats"), col("add.size"), to_json(struct(col("add"))).as("json"))
      .persist(StorageLevel.MEMORY_AND_DISK)
    ReplayedFiles.cleaner.register(this, new ReplayedFiles.Unpersist(cached))
    cached
  }

  private def job[A](what: String)(f: => A): A = {
    spark.sparkContext.setJobDescription(s"Silt: $what of $description")
    try f finally spark.sparkContext.setJobDescription(null)
  }

  def files(partitionPredicates: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata, timeZone: String)(
      keep: () => AddFile => Boolean): IndexedSeq[AddFile] = {
    val schema = metadata.partitionSchema
    val kept = job("the files a scan reads") {
      adds.rdd.mapPartitions { rows =>
        val inPartitions = PartitionPredicates.matcher(partitionPredicates, schema, timeZone)
        val parse = if (dataFilters.isEmpty) None else Some(FileStats.parserFor(metadata))
        rows.filter { r =>
          val values = r.getMap[String, String](0)
          val partition = AddFile("", if (values == null) Map.empty else values.toMap, 0L, 0L, dataChange = false)
          inPartitions(partition) && parse.forall(p => DataSkipping.mayMatch(dataFilters, p(Option(r.getString(1)))))
        }.map(_.getString(3))
      }.collect()
    }
    val accept = keep()
    kept.iterator.map(json => ActionCodec.fromJson(json).asInstanceOf[AddFile]).filter(accept).toIndexedSeq
  }

  lazy val numFiles: Long = job("the number of files")(adds.count())

  lazy val sizeInBytes: Long = job("the bytes of the files") {
    Option(adds.agg(sum(col("size"))).head().get(0)).map(_.asInstanceOf[Number].longValue).getOrElse(0L)
  }
}

/** Registered in `META-INF/services/io.silt.log.DistributedReplay`: the log's replays of large commits. */
final class ReplayedFilesReplay extends DistributedReplay {
  def files(log: TableLog, version: Long, checkpoint: Option[CheckpointInstance], commits: Seq[Path]): Option[DistributedFiles] =
    SparkSession.getActiveSession.orElse(SparkSession.getDefaultSession).flatMap { spark =>
      StateReconstruction.Replay(log, checkpoint, commits).rows(spark, Long.MaxValue)
        .map(rows => new ReplayedFiles(spark, rows, s"${log.tablePath} at version $version"))
    }
}

private object ReplayedFiles {
  private val cleaner = Cleaner.create()

  /** Frees a replay's cache once its snapshot is gone (it must not hold the replay, or it never would be). */
  private final class Unpersist(cached: DataFrame) extends Runnable {
    def run(): Unit = cached.unpersist(blocking = false)
  }
}
