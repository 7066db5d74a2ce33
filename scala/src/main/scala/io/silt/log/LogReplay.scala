package io.silt.log

import io.silt.actions._
import scala.collection.mutable

import org.apache.hadoop.fs.Path

/**
 * Folds commits, oldest first, into the set of live files. Files are keyed by (path, DV unique
 * id), so a remove of (f, dv1) with an add of (f, dv2) in one commit swaps the deletion vector.
 */
final class LogReplay(tablePath: Path, allowFilesOutside: Boolean = false) {
  private val root = tablePath.toUri.getPath.stripSuffix("/") + "/"
  private val live = mutable.LinkedHashMap.empty[(String, String), AddFile]
  private val tombstones = mutable.LinkedHashMap.empty[(String, String), RemoveFile]
  private val txns = mutable.HashMap.empty[String, SetTransaction]
  private val domains = mutable.HashMap.empty[String, DomainMetadata]
  private var protocol: Option[Protocol] = None
  private var metadata: Option[Metadata] = None

  private val keys = new FileKeys(tablePath.toUri.toString)

  private def key(path: String, dv: Option[io.silt.dv.DeletionVectorDescriptor], plain: Boolean): (String, String) =
    (keys.of(path, plain), dv.map(_.uniqueId).getOrElse(""))

  /** Starts from an existing snapshot, so that newer commits can be applied incrementally. */
  def seed(s: Snapshot): this.type = {
    protocol = Some(s.protocol)
    metadata = Some(s.metadata)
    // the snapshot's keys, not recomputed: seeding is on every commit's path, and keys parse URIs
    s.fileKeys.iterator.zip(s.files.iterator).foreach { case (k, a) => live(k) = a }
    s.tombstoneKeys.iterator.zip(s.tombstones.iterator).foreach { case (k, r) => tombstones(k) = r }
    txns ++= s.transactions
    domains ++= s.domains
    this
  }

  def append(actions: Iterable[Action]): this.type = {
    // a checkpoint's million adds: the table sized once rather than doubled twenty times
    actions match {
      case s: collection.Seq[_] if s.lengthCompare(1024) > 0 => live.sizeHint(live.size + s.size)
      case _ =>
    }
    actions.foreach {
      case a: AddFile =>
        val plain = TablePaths.isPlainRelative(a.path)
        admit(a, plain)
        val k = key(a.path, a.deletionVector, plain)
        live(k) = a
        tombstones.remove(k)
      case r: RemoveFile =>
        val k = key(r.path, r.deletionVector, TablePaths.isPlainRelative(r.path))
        live.remove(k)
        tombstones(k) = r
      case p: Protocol => protocol = Some(p)
      case m: Metadata => metadata = Some(m)
      case t: SetTransaction => txns(t.appId) = t
      // a removed domain stays as its tombstone: a log compaction must carry the removal
      case d: DomainMetadata => domains(d.domain) = d
      case _ =>
    }
    this
  }

  /**
   * A log naming files outside the table (`../x`, or an absolute path elsewhere) is refused: a
   * hostile log must not make a reader open arbitrary files.
   */
  /** A relative path (no scheme, no leading `/`) that is not plain, so may climb out of the table with `..`. */
  private def relativeNotPlain(p: String): Boolean = !TablePaths.isPlainRelative(p) && !p.startsWith("/") &&
    (try new java.net.URI(p).getScheme == null catch { case _: java.net.URISyntaxException => true })

  private def checkInside(a: AddFile, plain: Boolean): Unit = {
    def inside(p: Path) = p.toUri.getPath.startsWith(root) &&
      Option(p.toUri.getScheme).forall(_ == tablePath.toUri.getScheme)
    // a plain relative path is inside by construction; only the others need resolving
    val data = if (plain) None else Some(TablePaths.absolute(tablePath, a.path))
    val dv = a.deletionVector.filterNot(_.isInline).map { d =>
      try d.filePath(tablePath)
      catch {
        case e: IllegalArgumentException =>
          throw new io.silt.errors.CorruptLogException(tablePath.toString + "/_delta_log",
            s"the add action for ${a.path} has a malformed deletion vector descriptor $d: ${e.getMessage}", e)
      }
    }
    (data.toSeq ++ dv).find(p => !inside(p)).foreach { p =>
      throw new io.silt.errors.CorruptLogException(tablePath.toString + "/_delta_log", s"an add action names ${a.path}" +
        (if (!data.contains(p)) s" with deletion vector file $p" else "") + s", which is outside the table directory $tablePath " +
        s"(set ${io.silt.config.SiltSettings.AllowFilesOutsideTable.key}=true to read tables whose files live elsewhere, such as shallow clones)")
    }
  }

  /**
   * Refuses an add naming a file outside the table (unless the table may have such files); a
   * relative path climbing out of the table is corrupt whatever the setting: clones name files by
   * absolute path.
   */
  def admit(a: AddFile, plain: Boolean): Unit =
    if (!allowFilesOutside || (!plain && relativeNotPlain(a.path))) checkInside(a, plain)

  /** Whether the replayed actions add or remove the file `path` with deletion vector `dv`. */
  def touches(path: String, dv: Option[io.silt.dv.DeletionVectorDescriptor]): Boolean = {
    val k = key(path, dv, TablePaths.isPlainRelative(path))
    live.contains(k) || tombstones.contains(k)
  }

  /** The keys of the live files and of the tombstones replayed so far. */
  def fileKeysReplayed: Iterator[(String, String)] = live.keysIterator ++ tombstones.keysIterator

  /** The key replay gives the file of an add or remove. */
  def keyOf(path: String, dv: Option[io.silt.dv.DeletionVectorDescriptor]): (String, String) =
    key(path, dv, TablePaths.isPlainRelative(path))

  /** The live files replayed so far. */
  def liveFiles: Iterator[AddFile] = live.valuesIterator

  /** The file-level state replayed so far. */
  def toState: SnapshotState = new SnapshotState(live.values.toIndexedSeq, tombstones.values.toIndexedSeq,
    txns.toMap, domains.iterator.filterNot(_._2.removed).toMap, live.keys.toIndexedSeq, tombstones.keys.toIndexedSeq)

  /**
   * The replayed actions reconciled, as a log compaction holds them: the last protocol and
   * metadata, each transaction's and domain's last action (removals included), each file's last
   * add or remove (every remove, however old: an older add may be outside the replayed commits).
   */
  def reconciled: Seq[Action] = protocol.toSeq ++ metadata ++ txns.values ++ domains.values ++ live.values ++
    tombstones.values

  def toSnapshot(version: Long, timestamp: Long): Snapshot = {
    val state = toState
    val s = new Snapshot(tablePath, version,
      protocol.getOrElse(throw new IllegalStateException("no protocol action")),
      metadata.getOrElse(throw new IllegalStateException("no metaData action")),
      timestamp, () => state)
    s.state // held already: it counts as read
    s
  }
}
