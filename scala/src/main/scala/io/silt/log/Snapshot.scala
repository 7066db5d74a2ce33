package io.silt.log

import org.apache.hadoop.fs.Path

/** The state of a table at one version: its protocol, metadata and live files. Immutable. */
final class Snapshot(
    val tablePath: Path,
    val version: Long,
    val protocol: Protocol,
    val metadata: Metadata,
    val files: IndexedSeq[AddFile],
    val tombstones: IndexedSeq[RemoveFile],
    val transactions: Map[String, SetTransaction],
    val domains: Map[String, DomainMetadata],
    val timestamp: Long,
    private[log] val fileKeys: IndexedSeq[(String, String)],
    private[log] val tombstoneKeys: IndexedSeq[(String, String)]) {

  def sizeInBytes: Long = files.iterator.map(_.size).sum
  def numFiles: Int = files.size
  def filePath(add: AddFile): Path = TablePaths.absolute(tablePath, add.path)

  override def toString: String = s"Snapshot($tablePath, version $version, ${files.size} files)"
}
