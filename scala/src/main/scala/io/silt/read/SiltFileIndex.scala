package io.silt.read

import io.silt.config.SiltSettings
import io.silt.errors.InvalidTableOperationException
import io.silt.log.{AddFile, Snapshot, TableFeatures, TableLog}
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
 * files' statistics. With `latest`, the index follows the table: each query over it lists the
 * table's latest snapshot (as Delta Lake's file index does), so that a DataFrame defined before a
 * write sees it when it runs again; `snapshot` stays the one it was defined at (its schema).
 */
final class SiltFileIndex(spark: SparkSession, val snapshot: Snapshot, private val selected: Option[IndexedSeq[AddFile]],
    latest: Option[TableLog] = None) extends FileIndex {
  def this(spark: SparkSession, snapshot: Snapshot) = this(spark, snapshot, None)

  /** The files, statistics and DV presence of one snapshot, computed once per version. */
  private final class Listed(val snapshot: Snapshot) {
    val files: IndexedSeq[AddFile] = selected.getOrElse(snapshot.files)
    lazy val stats: Map[AddFile, FileStats] = files.map(a => a -> FileStats.parse(a.stats)).toMap
    lazy val scanFiles: ScanFiles = ScanFiles(files.iterator.map(_.size).maxOption.getOrElse(0L),
      // a followed table may gain deletion vectors between planning and listing: assume them where allowed
      files.exists(_.deletionVector.isDefined) || (latest.isDefined && TableFeatures.deletionVectorsAllowed(snapshot.protocol)))
  }
  @volatile private var listed: Listed = _

  /** What this index lists now: its snapshot's files, or the latest snapshot's when it follows the table. */
  private def now: Listed = {
    val s = latest.fold(snapshot)(log => SiltFileIndex.compatible(snapshot, log.latest()))
    val l = listed
    if (l != null && l.snapshot.version == s.version) l else { val fresh = new Listed(s); listed = fresh; fresh }
  }

  /** The files scanned: those chosen for a rewrite, else the (latest) snapshot's, read when first needed. */
  def files: IndexedSeq[AddFile] = now.files

  /** What the reader must be built for: the largest file, and whether deletion vectors may be met. */
  def scanFiles: ScanFiles = now.scanFiles

  private val timeZone = spark.sessionState.conf.sessionLocalTimeZone

  override def rootPaths: Seq[Path] = Seq(snapshot.tablePath)

  override def partitionSchema: StructType = snapshot.metadata.partitionSchema

  /** The files a scan with these filters must read. */
  def matchingFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[AddFile] = {
    val l = now
    val inPartitions = l.files.filter(PartitionPredicates.matcher(partitionFilters, partitionSchema, timeZone))
    if (dataFilters.isEmpty || !SiltFileIndex.skippingEnabled(spark)) inPartitions
    else inPartitions.filter(a => DataSkipping.mayMatch(dataFilters, l.stats(a)))
  }

  override def listFiles(partitionFilters: Seq[Expression], dataFilters: Seq[Expression]): Seq[PartitionDirectory] = {
    val files = matchingFiles(partitionFilters, dataFilters)
    files.groupBy(_.partitionValues).toSeq.map { case (_, group) =>
      PartitionDirectory(PartitionValues.rowOf(group.head, partitionSchema, timeZone), group.map(toStatus))
    }
  }

  /** A file with a deletion vector carries its descriptor to the reader in the executors. */
  private def toStatus(a: AddFile): FileStatusWithMetadata = {
    val status = new FileStatus(a.size, false, 0, 0, a.modificationTime, snapshot.filePath(a))
    val metadata: Map[String, Any] = a.deletionVector.map(dv => Map[String, Any](
      DeletedRowFilter.DescriptorKey -> dv, DeletedRowFilter.TablePathKey -> snapshot.tablePath.toString)).getOrElse(Map.empty)
    FileStatusWithMetadata(status, metadata)
  }

  override def inputFiles: Array[String] = files.map(a => snapshot.filePath(a).toString).toArray

  override def refresh(): Unit = ()

  override def sizeInBytes: Long = files.iterator.map(_.size).sum

  override def toString: String = s"SiltFileIndex(${snapshot.tablePath}, version ${snapshot.version})"

  override def equals(other: Any): Boolean = other match {
    case o: SiltFileIndex => o.snapshot.tablePath == snapshot.tablePath && o.snapshot.version == snapshot.version &&
      ((o.selected.isEmpty && selected.isEmpty) || (o.files eq files) || o.files == files)
    case _ => false
  }
  override def hashCode(): Int = (snapshot.tablePath, snapshot.version, selected.map(_.size)).hashCode()
}

object SiltFileIndex {
  def skippingEnabled(spark: SparkSession): Boolean = SiltSettings.SkippingEnabled(spark)

  /**
   * `latest`, if a query defined at `defined` can read it: same partitioning, and every column it
   * selects still there with its type (columns added since are not selected). Otherwise the
   * DataFrame must be defined again, as in Delta Lake.
   */
  private def compatible(defined: Snapshot, latest: Snapshot): Snapshot = {
    val then = defined.metadata
    val now = latest.metadata
    val samePartitioning = then.partitionColumns.map(_.toLowerCase) == now.partitionColumns.map(_.toLowerCase)
    val columnsKept = then.schema.fields.forall(f => now.schema.fields.exists(n => n.name == f.name && n.dataType == f.dataType))
    if (latest.version != defined.version && (then.id != now.id || !samePartitioning || !columnsKept)) {
      throw new InvalidTableOperationException(s"the table at ${defined.tablePath} changed since this DataFrame was " +
        s"defined at version ${defined.version} (now ${latest.version}: its id, partitioning or columns differ); " +
        "read the table again")
    }
    latest
  }
}
