package io.silt.read

import io.silt.config.SiltSettings
import io.silt.dv.DeletionVectorDescriptor
import io.silt.actions.{AddFile, TablePaths}
import io.silt.features.ColumnMapping
import io.silt.log.Snapshot
import io.silt.partition.{PartitionPredicates, PartitionValues}
import io.silt.stats.{DataSkipping, FileStats}
import org.apache.hadoop.fs.{FileStatus, Path}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.datasources.{FileIndex, FileStatusWithMetadata, PartitionDirectory}
import org.apache.spark.sql.types.StructType

/**
 * The files of one snapshot (or a chosen subset, for rewrites), as Spark's file scan sees them:
 * partition pruning on the log's partition values, then min/max/null-count skipping on the
 * files' statistics.
 */
final class SiltFileIndex(spark: SparkSession, val snapshot: Snapshot, private val selected: Option[IndexedSeq[AddFile]])
    extends FileIndex {
  def this(spark: SparkSession, snapshot: Snapshot) = this(spark, snapshot, None)

  /** The files scanned: those chosen for a rewrite, else the snapshot's (read when first needed). */
  lazy val files: IndexedSeq[AddFile] = selected.getOrElse(snapshot.files)

  private val timeZone = spark.sessionState.conf.sessionLocalTimeZone
  // statistics are parsed for the files of the matching partitions only, as each scan needs them
  private lazy val parseStats = FileStats.parserFor(snapshot.metadata)
  /** The table's partition columns, with the physical names their values are keyed by. */
  private def tablePartitions: StructType = snapshot.metadata.partitionSchema

  override def rootPaths: Seq[Path] = Seq(snapshot.tablePath)

  override def partitionSchema: StructType = ColumnMapping.logicalSchema(tablePartitions)

  /**
   * The files a scan with these filters must read: those of the matching partitions whose
   * statistics do not rule the data filters out. A large table's files are read from its
   * checkpoint's row groups that its partition filters do not rule out ([[Snapshot.filesWhere]]).
   */
  def matchingFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[AddFile] = {
    val derived = GeneratedPartitionFilters.derive(dataFilters, snapshot.metadata, timeZone)
    val skipping = dataFilters.nonEmpty && SiltFileIndex.skippingEnabled(spark)
    def skip: AddFile => Boolean = if (!skipping) _ => true else a => DataSkipping.mayMatch(dataFilters, parseStats(a.stats))
    selected match {
      case Some(chosen) =>
        val inPartition = PartitionPredicates.matcher(partitionFilters ++ derived, tablePartitions, timeZone)
        chosen.filter(a => inPartition(a) && skip(a))
      case None => snapshot.filesWhere(partitionFilters ++ derived, timeZone, if (skipping) dataFilters else Nil)(() => skip)
    }
  }

  /** What the reader is told of the files it may read: from the file list, or the worst case when scans read the checkpoint. */
  def scanFilesSummary: ScanFiles =
    if (selected.isEmpty && snapshot.fileListOffDriver) ScanFiles.Unknown
    else ScanFiles(files.iterator.map(_.size).reduceOption(_ max _).getOrElse(0L), files.exists(_.deletionVector.isDefined))

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] = {
    val files = matchingFiles(partitionFilters, dataFilters)
    files.groupBy(_.partitionValues).toSeq.map { case (_, group) =>
      PartitionDirectory(PartitionValues.rowOf(group.head, tablePartitions, timeZone), group.map(toStatus))
    }
  }

  private def toStatus(a: AddFile): FileStatusWithMetadata = SiltFileIndex.statusOf(snapshot.tablePath, a)

  override def inputFiles: Array[String] = files.map(a => snapshot.filePath(a).toString).toArray

  override def refresh(): Unit = ()

  override def sizeInBytes: Long = if (selected.isEmpty) snapshot.sizeInBytesBound else files.iterator.map(_.size).sum

  override def toString: String = s"SiltFileIndex(${snapshot.tablePath}, version ${snapshot.version})"

  override def equals(other: Any): Boolean = other match {
    case o: SiltFileIndex => o.snapshot.tablePath == snapshot.tablePath && o.snapshot.version == snapshot.version &&
      ((o.selected.isEmpty && selected.isEmpty) || (o.files eq files) || o.files == files)
    case _ => false
  }
  override def hashCode(): Int = (snapshot.tablePath, snapshot.version, selected.map(_.size)).hashCode()
}

object SiltFileIndex {
  /**
   * A file as a scan lists it, with its row-tracking fields. One with a deletion vector carries its
   * descriptor to the reader in the executors; `keepOnly`: a deletion vector whose rows alone are read (see [[DeletedRowFilter]]).
   */
  def statusOf(tablePath: Path, a: AddFile, keepOnly: Option[DeletionVectorDescriptor] = None): FileStatusWithMetadata = {
    val status = new FileStatus(a.size, false, 0, 0, a.modificationTime, TablePaths.absolute(tablePath, a.path))
    val dvs = a.deletionVector.map(DeletedRowFilter.DescriptorKey -> _) ++ keepOnly.map(DeletedRowFilter.KeepOnlyKey -> _)
    val metadata: Map[String, Any] = RowTrackingColumns.constantsOf(a).toMap ++
      (if (dvs.isEmpty) Map.empty else (dvs ++ Seq(DeletedRowFilter.TablePathKey -> tablePath.toString)).toMap)
    FileStatusWithMetadata(status, metadata)
  }

  def skippingEnabled(spark: SparkSession): Boolean = SiltSettings.SkippingEnabled(spark)
}
