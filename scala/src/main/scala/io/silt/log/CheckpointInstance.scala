package io.silt.log

import org.apache.hadoop.fs.FileStatus

/** The kinds of checkpoint a log can hold. */
sealed trait CheckpointKind
object CheckpointKind {
  case object Classic extends CheckpointKind
  final case class MultiPart(parts: Int) extends CheckpointKind
  final case class V2(format: String) extends CheckpointKind
}

/** One complete checkpoint of the table at `version`, and the files it is made of. */
final case class CheckpointInstance(version: Long, kind: CheckpointKind, files: Seq[FileStatus]) {
  override def toString: String = s"checkpoint $version ($kind: ${files.map(_.getPath.getName).mkString(", ")})"
}

object CheckpointInstance {
  /**
   * The complete checkpoints among listed `_delta_log` files: a multi-part checkpoint counts only
   * when all its parts are there; several checkpoints of one version are all returned, V2 first.
   */
  def complete(files: Seq[(FileNames.CheckpointFile, FileStatus)]): Seq[CheckpointInstance] = {
    val v2 = files.collect { case (f, st) if f.v2Uuid.isDefined => CheckpointInstance(f.version, CheckpointKind.V2(f.format), Seq(st)) }
    val classic = files.collect { case (f, st) if f.v2Uuid.isEmpty && f.part.isEmpty => CheckpointInstance(f.version, CheckpointKind.Classic, Seq(st)) }
    val multi = files.collect { case (f, st) if f.part.isDefined => (f, st) }
      .groupBy { case (f, _) => (f.version, f.part.get._2) }.toSeq.flatMap { case ((version, n), parts) =>
        val byPart = parts.map { case (f, st) => f.part.get._1 -> st }.toMap
        if ((1 to n).forall(byPart.contains)) Some(CheckpointInstance(version, CheckpointKind.MultiPart(n), (1 to n).map(byPart)))
        else None
      }
    (v2 ++ classic ++ multi).sortBy(c => (-c.version, c.kind match { case _: CheckpointKind.V2 => 0; case _ => 1 }))
  }
}
