package io.silt.log

import java.util.ServiceLoader

import scala.jdk.CollectionConverters._

import io.silt.actions.{AddFile, Metadata}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * A snapshot's live files as a Spark job replays them from its log, never held on the driver:
 * what a table whose commits since its last checkpoint add more files than the driver should hold
 * is scanned from.
 */
trait DistributedFiles {
  /**
   * The live files of the partitions `partitionPredicates` match, less those whose statistics rule
   * out `dataFilters`, that `keep` also accepts (decided on the driver, one thread's at a time).
   */
  def files(partitionPredicates: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata, timeZone: String)(
      keep: () => AddFile => Boolean): IndexedSeq[AddFile]

  /** The number of live files. */
  def numFiles: Long

  /** The bytes of the live files. */
  def sizeInBytes: Long
}

/**
 * Makes the [[DistributedFiles]] of a snapshot replayed from `checkpoint` (if any) and `commits`.
 * Implemented above the log, where Spark jobs over the log's rows are (`state.ReplayedFiles`), and
 * found through `META-INF/services/io.silt.log.DistributedReplay`.
 */
trait DistributedReplay {
  /** The files of the snapshot at `version` (with `metadata`); None when no Spark session is active or Spark cannot replay this log. */
  def files(log: TableLog, version: Long, metadata: Metadata, checkpoint: Option[CheckpointInstance],
      commits: Seq[Path]): Option[DistributedFiles]
}

object DistributedReplay {
  /** The installed replay (none in a build without the layers above the log: the driver replays). */
  lazy val installed: Option[DistributedReplay] =
    ServiceLoader.load(classOf[DistributedReplay], getClass.getClassLoader).iterator().asScala.toSeq.headOption
}
