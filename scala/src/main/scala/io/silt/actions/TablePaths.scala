package io.silt.actions

import java.net.{URI, URISyntaxException}

import org.apache.hadoop.fs.Path

/** Turns the URI-encoded, usually relative paths of actions into absolute file paths and back. */
object TablePaths {

  /** The absolute path of the file an action names. */
  def absolute(tablePath: Path, actionPath: String): Path = {
    val p = try new Path(new URI(actionPath)) catch {
      case _: URISyntaxException | _: IllegalArgumentException => new Path(actionPath)
    }
    if (p.isAbsolute) p else new Path(tablePath, p)
  }

  /**
   * The key under which log replay matches adds and removes of the same file. Plain relative paths
   * (nearly all of them) are joined as strings: parsing a million URIs dominated opening a table.
   */
  def canonical(tablePath: Path, actionPath: String): String =
    if (isPlainRelative(actionPath)) {
      val root = tablePath.toUri.toString
      if (root.endsWith("/")) root + actionPath else root + "/" + actionPath
    } else absolute(tablePath, actionPath).toUri.toString

  /**
   * Whether a path is relative and resolves against the table root unchanged: only characters that
   * URIs and Hadoop paths keep as they are, and no empty, `.` or `..` segment (so it stays inside).
   */
  def isPlainRelative(p: String): Boolean = {
    if (p.isEmpty) return false
    var i = 0
    var segmentStart = 0
    while (i <= p.length) {
      if (i == p.length || p.charAt(i) == '/') {
        val len = i - segmentStart
        if (len == 0 || (p.charAt(segmentStart) == '.' && (len == 1 || (len == 2 && p.charAt(segmentStart + 1) == '.')))) {
          return false
        }
        segmentStart = i + 1
      } else {
        val c = p.charAt(i)
        val plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
          c == '-' || c == '_' || c == '.' || c == '='
        if (!plain) return false
      }
      i += 1
    }
    true
  }

  /** Whether readers and VACUUM skip a file or folder of this name: `_x` and `.x`, but not a partition folder `_x=y`. */
  def isHidden(name: String): Boolean = (name.startsWith("_") || name.startsWith(".")) && !name.contains("=")

  /** The relative, URI-encoded path to store in an action for a file under the table root. */
  def relativeEncoded(relative: String): String =
    new URI(null, null, relative, null).getRawPath
}
