package io.silt.log

import io.silt.actions._
import io.silt.logstore.StorageFailure
import io.silt.partition.PartitionPredicates
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.hadoop.fs.Path

/** The file-level state of a snapshot: live files, tombstones, transactions and domains. */
final class SnapshotState(
    val files: IndexedSeq[AddFile],
    val tombstones: IndexedSeq[RemoveFile],
    val transactions: Map[String, SetTransaction],
    val domains: Map[String, DomainMetadata],
    private[log] val fileKeys: IndexedSeq[(String, String)],
    private[log] val tombstoneKeys: IndexedSeq[(String, String)])

/**
 * The state of a table at one version: its protocol, metadata and live files. Immutable. The
 * file-level state may be computed on first use: opening a table for its schema then reads no
 * more of a checkpoint than its protocol and metadata.
 */
final class Snapshot(
    val tablePath: Path,
    val version: Long,
    val protocol: Protocol,
    val metadata: Metadata,
    val timestamp: Long,
    computeState: () => SnapshotState,
    val uncommittedMetadata: Boolean = false,
    private[log] val checkpointScan: Option[CheckpointScan] = None,
    private[log] val replayed: Option[ReplayedLog] = None) extends Logging {

  @volatile private var computed = false
  private[log] lazy val state: SnapshotState = { val s = computeState(); computed = true; s }

  def files: IndexedSeq[AddFile] = state.files
  def tombstones: IndexedSeq[RemoveFile] = state.tombstones
  // a large table's are read from its checkpoint's few rows of them, or with its commits' other actions, not with its file list
  def transactions: Map[String, SetTransaction] =
    if (replaysByJob) replayed.get.transactions else fromCheckpoint(_.transactions)(state.transactions)
  def domains: Map[String, DomainMetadata] = if (replaysByJob) replayed.get.domains else fromCheckpoint(_.domains)(state.domains)
  private[log] def fileKeys: IndexedSeq[(String, String)] = state.fileKeys
  private[log] def tombstoneKeys: IndexedSeq[(String, String)] = state.tombstoneKeys

  /** Whether the file-level state has been read (tests and diagnostics). */
  def isStateLoaded: Boolean = computed

  /**
   * Whether scans read their files from the checkpoint's row groups ([[scanFiles]]) rather than
   * the file list: the checkpoint holds more files than the driver should, and the list is not read.
   */
  def scansCheckpoint: Boolean = !computed && checkpointScan.exists(_.large)

  /** Whether scans read their files from a Spark job's replay of the commits ([[DistributedFiles]]) rather than the file list. */
  private def replaysByJob: Boolean = !computed && replayed.exists(_.files.isDefined)

  /**
   * Whether the driver does not hold this snapshot's file list: its scans read the checkpoint's row
   * groups or a Spark job's replay, and what needs every file (a checkpoint, VACUUM, a stream's first
   * batch) is to replay the log with Spark (`state.StateReconstruction`) rather than read it.
   */
  def fileListOffDriver: Boolean = scansCheckpoint || replaysByJob

  /**
   * The live files of the partitions `partitionPredicates` match that `keep` also accepts (each
   * reading thread makes its own `keep`). When [[scansCheckpoint]], they are read from the
   * checkpoint's row groups the predicates, and the statistics' bounds of `dataFilters`, do not
   * rule out ([[CheckpointPushdown]]) and the file list stays unread; otherwise (or when the
   * checkpoint cannot be read so) the list is filtered. `keep` alone decides which files the data
   * filters rule out.
   */
  def filesWhere(partitionPredicates: Seq[Expression], timeZone: String, dataFilters: Seq[Expression] = Nil)(
      keep: () => AddFile => Boolean = () => _ => true): IndexedSeq[AddFile] = {
    val matching = { () =>
      val inPartitions = PartitionPredicates.matcher(partitionPredicates, metadata.partitionSchema, timeZone)
      val accept = keep()
      (a: AddFile) => inPartitions(a) && accept(a)
    }
    val scanned = if (replaysByJob) Some(replayed.get.filesWhere(partitionPredicates, dataFilters, metadata, timeZone)(matching))
      else if (!scansCheckpoint) None
      else checkpointScan.flatMap(_.files(CheckpointPushdown(partitionPredicates, dataFilters, metadata))(matching))
    scanned.getOrElse(files.filter(matching()))
  }

  /** The bytes of the files, or an upper bound of them when [[scansCheckpoint]] (the file list is not read for it). */
  def sizeInBytesBound: Long = if (scansCheckpoint) checkpointScan.get.sizeUpperBound else sizeInBytes

  // a large table's are counted from its checkpoint or its replay without holding its file list
  def sizeInBytes: Long =
    if (replaysByJob) replayed.get.files.get.sizeInBytes else fromCheckpoint(_.sizeInBytes)(files.iterator.map(_.size).sum)
  def numFiles: Long = if (replaysByJob) replayed.get.files.get.numFiles else fromCheckpoint(_.numFiles)(files.size)

  /** `f` of the checkpoint scan when [[scansCheckpoint]]; else, or when the checkpoint cannot be decoded so (not on a storage error), `otherwise`. */
  private def fromCheckpoint[A](f: CheckpointScan => A)(otherwise: => A): A =
    if (!scansCheckpoint) otherwise else try f(checkpointScan.get) catch {
      case NonFatal(e) if StorageFailure.of(e).isEmpty =>
        logWarning(s"Silt: cannot read $this from its checkpoint's row groups; reading its file list: ${e.getMessage}")
        otherwise
    }
  def filePath(add: AddFile): Path = TablePaths.absolute(tablePath, add.path)

  /**
   * This snapshot's files under metadata not committed yet: what a MERGE WITH SCHEMA EVOLUTION
   * reads and writes against, and commits with its rows.
   */
  def withUncommittedMetadata(m: Metadata): Snapshot =
    new Snapshot(tablePath, version, protocol, m, timestamp, () => state, uncommittedMetadata = true, checkpointScan,
      replayed)

  override def toString: String = s"Snapshot($tablePath, version $version)"
}

/**
 * What the driver holds of a snapshot whose commits since its checkpoint add more files than it
 * should hold: the transactions and domains (read from those commits' other actions and the
 * checkpoint's rows of them), and the Spark job that replays its files, made when first asked for.
 */
private[log] final class ReplayedLog(val transactions: Map[String, SetTransaction], val domains: Map[String, DomainMetadata],
    job: () => Option[DistributedFiles], admit: LogReplay) {
  lazy val files: Option[DistributedFiles] = job()

  /** The job's files a scan keeps, each refused as the driver's replay refuses it (a file outside the table). */
  def filesWhere(partitionPredicates: Seq[Expression], dataFilters: Seq[Expression], metadata: Metadata, timeZone: String)(
      keep: () => AddFile => Boolean): IndexedSeq[AddFile] = {
    val kept = files.get.files(partitionPredicates, dataFilters, metadata, timeZone)(keep)
    kept.foreach(a => admit.admit(a, TablePaths.isPlainRelative(a.path)))
    kept
  }
}
