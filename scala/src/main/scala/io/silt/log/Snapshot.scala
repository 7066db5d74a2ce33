package io.silt.log

import io.silt.actions._
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
    val uncommittedMetadata: Boolean = false) {

  @volatile private var computed = false
  private[log] lazy val state: SnapshotState = { val s = computeState(); computed = true; s }

  def files: IndexedSeq[AddFile] = state.files
  def tombstones: IndexedSeq[RemoveFile] = state.tombstones
  def transactions: Map[String, SetTransaction] = state.transactions
  def domains: Map[String, DomainMetadata] = state.domains
  private[log] def fileKeys: IndexedSeq[(String, String)] = state.fileKeys
  private[log] def tombstoneKeys: IndexedSeq[(String, String)] = state.tombstoneKeys

  /** Whether the file-level state has been read (tests and diagnostics). */
  def isStateLoaded: Boolean = computed

  def sizeInBytes: Long = files.iterator.map(_.size).sum
  def numFiles: Int = files.size
  def filePath(add: AddFile): Path = TablePaths.absolute(tablePath, add.path)

  /**
   * This snapshot's files under metadata not committed yet: what a MERGE WITH SCHEMA EVOLUTION
   * reads and writes against, and commits with its rows.
   */
  def withUncommittedMetadata(m: Metadata): Snapshot =
    new Snapshot(tablePath, version, protocol, m, timestamp, () => state, uncommittedMetadata = true)

  override def toString: String = s"Snapshot($tablePath, version $version)"
}
