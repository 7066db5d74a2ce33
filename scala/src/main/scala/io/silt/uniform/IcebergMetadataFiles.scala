package io.silt.uniform

import java.nio.charset.StandardCharsets

import scala.util.Try

import io.silt.log.TableLog
import org.apache.hadoop.fs.{FileSystem, Path}

/**
 * Where a table's Iceberg metadata lives and how its versions are found: `metadata/vN.metadata.json` beside the
 * Delta log, and `metadata/version-hint.text` naming the newest N, as Iceberg's path-based (Hadoop) tables keep
 * them, so that a reader given the table's path, or the metadata file, finds the current snapshot.
 */
object IcebergMetadataFiles {
  val Folder = "metadata"
  val VersionHint = "version-hint.text"
  private val VersionFile = """v(\d+)\.metadata\.json""".r

  def folder(tablePath: Path): Path = new Path(tablePath, Folder)
  def metadataFile(tablePath: Path, version: Int): Path = new Path(folder(tablePath), s"v$version.metadata.json")

  /**
   * The newest metadata version and its content; None when the table has none. The hint is only a start:
   * newer versions a writer left without updating it are found after it, and without a hint the folder is
   * listed. A file that exists but does not parse throws: it is never taken for "no metadata".
   */
  def latest(log: TableLog): Option[(Int, IcebergTableMetadata)] =
    latestVersion(log).map(v => v -> read(log.store.fs(log.tablePath), metadataFile(log.tablePath, v)))

  /** The newest metadata version (found as [[latest]] finds it, without reading it); None when there is none. */
  def latestVersion(log: TableLog): Option[Int] = {
    val fs = log.store.fs(log.tablePath)
    val dir = folder(log.tablePath)
    readHint(fs, dir).orElse(listed(fs, dir)).map { first =>
      var v = first
      while (fs.exists(metadataFile(log.tablePath, v + 1))) v += 1
      v
    }
  }

  def read(fs: FileSystem, file: Path): IcebergTableMetadata = {
    val in = fs.open(file)
    try IcebergTableMetadata.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)) finally in.close()
  }

  private def readHint(fs: FileSystem, dir: Path): Option[Int] = {
    val hint = new Path(dir, VersionHint)
    if (!fs.exists(hint)) None
    else {
      val in = fs.open(hint)
      val text = try new String(in.readAllBytes(), StandardCharsets.UTF_8).trim finally in.close()
      // a torn or foreign hint is no answer; the listing is
      Try(text.toInt).toOption.filter(v => fs.exists(new Path(dir, s"v$v.metadata.json"))).orElse(listed(fs, dir))
    }
  }

  private def listed(fs: FileSystem, dir: Path): Option[Int] =
    if (!fs.exists(dir)) None
    else fs.listStatus(dir).toSeq.map(_.getPath.getName).collect { case VersionFile(v) => v.toInt }
      .reduceOption(_ max _)

  /** Writes `metadata` as version `version` unless that version exists (false: another writer got there first). */
  def write(log: TableLog, version: Int, metadata: IcebergTableMetadata): Boolean = {
    val written = log.store.writeIfAbsent(metadataFile(log.tablePath, version), Seq(metadata.json))
    // The hint without a line end, as Iceberg writes it: some readers take the whole file for the number.
    if (written) {
      val fs = log.store.fs(log.tablePath)
      val out = fs.create(new Path(folder(log.tablePath), VersionHint), true)
      try out.write(version.toString.getBytes(StandardCharsets.UTF_8)) finally out.close()
    }
    written
  }
}
