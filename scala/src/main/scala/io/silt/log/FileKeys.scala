package io.silt.log

import io.silt.actions.TablePaths
import org.apache.hadoop.fs.Path

/**
 * The key a file's path has in log replay: its path relative to the table when it has one (a plain
 * relative path as it is, an absolute one inside the table without the root), else its absolute
 * URI, so that the two spellings of one file are one key, and the common one costs no new string.
 * Serializable: a Spark job replaying the log keys files as the driver's replay does.
 */
final class FileKeys(tableUri: String) extends Serializable {
  @transient private lazy val tablePath = new Path(new java.net.URI(tableUri))
  @transient private lazy val rootUri = tablePath.toUri.toString.stripSuffix("/") + "/"

  def of(path: String): String = of(path, TablePaths.isPlainRelative(path))

  /** The key of `path`, whose plainness (`TablePaths.isPlainRelative`) the caller knows. */
  def of(path: String, plain: Boolean): String = if (plain) path else {
    val absolute = TablePaths.canonical(tablePath, path)
    val inside = if (absolute.startsWith(rootUri)) absolute.substring(rootUri.length) else ""
    if (TablePaths.isPlainRelative(inside)) inside else absolute
  }
}
