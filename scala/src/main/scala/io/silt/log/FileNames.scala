package io.silt.log

import org.apache.hadoop.fs.Path

/** The names of files in `_delta_log/` and what kind of file each is. */
object FileNames {
  private val Commit = """^(\d{20})\.json$""".r
  private val ClassicCheckpoint = """^(\d{20})\.checkpoint\.parquet$""".r
  private val MultiPartCheckpoint = """^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$""".r
  private val V2Checkpoint = """^(\d{20})\.checkpoint\.([^.]+)\.(json|parquet)$""".r
  private val Compacted = """^(\d{20})\.(\d{20})\.compacted\.json$""".r

  /** A classified `_delta_log` entry. */
  sealed trait LogFile { def version: Long }
  final case class CommitFile(version: Long) extends LogFile
  final case class CheckpointFile(version: Long, part: Option[(Int, Int)], v2Uuid: Option[String], format: String = "parquet")
      extends LogFile
  /** A log compaction: the reconciled actions of commits `version` to `end` (its name starts with `version`). */
  final case class CompactedFile(version: Long, end: Long) extends LogFile

  val LastCheckpoint = "_last_checkpoint"
  val SidecarDir = "_sidecars"

  def checkpointName(version: Long): String = f"$version%020d.checkpoint.parquet"
  def v2CheckpointName(version: Long, uuid: String, format: String): String = f"$version%020d.checkpoint.$uuid.$format"

  def commitName(version: Long): String = f"$version%020d.json"
  def commitPath(logPath: Path, version: Long): Path = new Path(logPath, commitName(version))
  def compactedName(start: Long, end: Long): String = f"$start%020d.$end%020d.compacted.json"

  def classify(name: String): Option[LogFile] = name match {
    case Commit(v) => Some(CommitFile(v.toLong))
    case ClassicCheckpoint(v) => Some(CheckpointFile(v.toLong, None, None))
    case MultiPartCheckpoint(v, p, n) => Some(CheckpointFile(v.toLong, Some((p.toInt, n.toInt)), None))
    case V2Checkpoint(v, uuid, format) => Some(CheckpointFile(v.toLong, None, Some(uuid), format))
    // the protocol wants the end past the start; any other is no compaction of the log
    case Compacted(s, e) if e.toLong > s.toLong => Some(CompactedFile(s.toLong, e.toLong))
    case _ => None
  }
}
