package io.silt.log

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

  /** The key under which log replay matches adds and removes of the same file. */
  def canonical(tablePath: Path, actionPath: String): String = absolute(tablePath, actionPath).toUri.toString

  /** The relative, URI-encoded path to store in an action for a file under the table root. */
  def relativeEncoded(relative: String): String =
    new URI(null, null, relative, null).getRawPath
}
