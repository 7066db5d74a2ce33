package io.silt.manifest

import scala.collection.mutable

import io.silt.errors.ManifestWithDeletionVectorsException
import io.silt.actions.AddFile
import io.silt.features.ColumnMapping
import io.silt.log.{Snapshot, TableLog}
import org.apache.hadoop.fs.{FileSystem, Path}
import org.apache.spark.sql.catalyst.catalog.ExternalCatalogUtils

/** What a manifest generation wrote and deleted. */
final case class ManifestResult(manifestsWritten: Int, manifestsDeleted: Int, filesListed: Long)

/**
 * The symlink manifests that Presto, Trino, Athena, Redshift Spectrum and Snowflake read instead of
 * the log: `_symlink_format_manifest/<partition dirs>/manifest`, one per partition (one in all for
 * an unpartitioned table), listing the absolute paths of that partition's live data files, one per
 * line. A manifest cannot carry deletion vectors, so a snapshot with any is refused.
 */
object SymlinkManifest {
  val Folder = "_symlink_format_manifest"
  val FileName = "manifest"
  /** The mode GENERATE names, as Delta Lake does. */
  val Mode = "symlink_format_manifest"

  /** Writes every partition's manifest for `snapshot` and deletes those of partitions it no longer has. */
  def generateAll(log: TableLog, snapshot: Snapshot): ManifestResult = {
    checkNoDeletionVectors(snapshot, snapshot.files)
    val grouped = snapshot.files.groupBy(a => partitionDir(snapshot, a.partitionValues))
    // an unpartitioned table always has its one manifest, empty when the table is
    val byDir = if (snapshot.metadata.partitionColumns.isEmpty && grouped.isEmpty) Map("" -> IndexedSeq.empty[AddFile]) else grouped
    val fs = root(log).getFileSystem(log.hadoopConf)
    val stale = existingManifests(fs, root(log)).filterNot(d => byDir.contains(d))
    byDir.foreach { case (dir, files) => write(fs, log, snapshot, dir, files) }
    stale.foreach(d => fs.delete(manifestPath(log, d), false))
    ManifestResult(byDir.size, stale.size, snapshot.files.size.toLong)
  }

  /** Rewrites the manifests of these partitions only (by their partition values): what a commit touched. */
  def update(log: TableLog, snapshot: Snapshot, partitions: Set[Map[String, String]]): ManifestResult = {
    val dirs = partitions.map(partitionDir(snapshot, _))
    val files = snapshot.files.filter(a => dirs.contains(partitionDir(snapshot, a.partitionValues))).groupBy(a =>
      partitionDir(snapshot, a.partitionValues))
    checkNoDeletionVectors(snapshot, files.values.flatten.toSeq)
    val fs = root(log).getFileSystem(log.hadoopConf)
    var deleted = 0
    dirs.foreach { d =>
      files.get(d) match {
        case Some(fs0) => write(fs, log, snapshot, d, fs0)
        case None if d.isEmpty => write(fs, log, snapshot, d, Nil)
        case None => if (fs.delete(manifestPath(log, d), false)) deleted += 1
      }
    }
    ManifestResult(files.size, deleted, files.values.map(_.size.toLong).sum)
  }

  /** Refuses files with deletion vectors: a manifest reader would return their deleted rows. */
  def checkNoDeletionVectors(snapshot: Snapshot, files: Iterable[AddFile]): Unit = {
    val withDv = files.filter(_.deletionVector.isDefined).map(_.path).toSeq
    if (withDv.nonEmpty) {
      throw new ManifestWithDeletionVectorsException(snapshot.tablePath.toString, s"cannot write symlink manifests for " +
        s"${snapshot.tablePath} (version ${snapshot.version}): ${withDv.size} of its files have deletion vectors, which " +
        s"manifest readers do not apply (${withDv.take(5).mkString(", ")}${if (withDv.size > 5) ", …" else ""}). Run " +
        "REORG TABLE … APPLY (PURGE) to rewrite them without their deleted rows first.")
    }
  }

  /** `col=value/…` as Hive names partition folders (logical column names, escaped values), "" unpartitioned. */
  def partitionDir(snapshot: Snapshot, values: Map[String, String]): String =
    snapshot.metadata.partitionSchema.fields.map { f =>
      val key = ColumnMapping.physicalName(f)
      val raw = values.find(_._1.equalsIgnoreCase(key)).map(_._2).orNull
      ExternalCatalogUtils.getPartitionPathString(f.name, if (raw == null || raw.isEmpty) null else raw)
    }.mkString("/")

  private def root(log: TableLog): Path = new Path(log.tablePath, Folder)

  private def manifestPath(log: TableLog, dir: String): Path =
    if (dir.isEmpty) new Path(root(log), FileName) else new Path(new Path(root(log), dir), FileName)

  private def write(fs: FileSystem, log: TableLog, snapshot: Snapshot, dir: String, files: Seq[AddFile]): Unit = {
    // Paths as Hadoop prints them (not URI-encoded), one per line, as Delta Lake writes them.
    val text = files.map(a => fs.makeQualified(snapshot.filePath(a)).toString).sorted.map(_ + "\n").mkString
    val out = fs.create(manifestPath(log, dir), true)
    try out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) finally out.close()
  }

  /** The partition dirs (relative to the manifest root) that hold a manifest now. */
  private def existingManifests(fs: FileSystem, root: Path): Seq[String] = {
    if (!fs.exists(root)) return Nil
    val rootPath = fs.makeQualified(root).toUri.getPath.stripSuffix("/") + "/"
    val found = mutable.ArrayBuffer.empty[String]
    val it = fs.listFiles(root, true)
    while (it.hasNext) {
      val p = it.next().getPath
      if (p.getName == FileName) found += p.getParent.toUri.getPath.stripPrefix(rootPath).stripPrefix(rootPath.stripSuffix("/"))
    }
    found.toSeq
  }
}
