package io.silt.log

import java.util.{LinkedHashMap => JLinkedHashMap, Map => JMap}

import io.silt.config.TableFileSystem

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.security.UserGroupInformation

/**
 * The logs opened in this JVM, so that users of one table share its cached latest snapshot. An
 * entry is keyed by the table's qualified path and by who reads it with which file-system
 * settings (user and the `fs.*` Hadoop settings: credentials, endpoints) and log options, so two
 * configurations never share an entry. Bounded: the least recently used log is dropped (a
 * dropped log only loses its cached snapshot).
 */
private[log] object TableLogCache {
  private final case class Key(path: String, user: String, fileSystemSettings: Map[String, String], options: LogOptions)

  /** Logs kept; each may hold a large snapshot, and a driver rarely works on more tables at once. */
  private val MaxEntries = 64

  private val logs = new JLinkedHashMap[Key, TableLog](16, 0.75f, true) {
    override def removeEldestEntry(eldest: JMap.Entry[Key, TableLog]): Boolean = size() > MaxEntries
  }

  def get(qualified: Path, hadoopConf: Configuration, options: LogOptions): TableLog = {
    val key = Key(qualified.toString, UserGroupInformation.getCurrentUser.getUserName, fileSystemSettings(hadoopConf), options)
    logs.synchronized {
      Option(logs.get(key)).getOrElse {
        val log = new TableLog(qualified, hadoopConf, options)
        logs.put(key, log)
        log
      }
    }
  }

  /** Every open log of the table at `qualified`, whoever opened it. */
  def allFor(qualified: Path): Seq[TableLog] = logs.synchronized {
    val out = Seq.newBuilder[TableLog]
    logs.forEach((k, log) => if (k.path == qualified.toString) out += log)
    out.result()
  }

  private def fileSystemSettings(conf: Configuration): Map[String, String] = {
    val out = Map.newBuilder[String, String]
    conf.forEach(e => if (TableFileSystem.isOption(e.getKey)) out += e.getKey -> e.getValue)
    out.result()
  }
}
