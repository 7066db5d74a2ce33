package io.silt.logstore

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}
import org.apache.hadoop.fs.s3a.S3AFileSystem
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request

/**
 * Lists a "directory" of S3 from a name on, with S3's start-after listing, so that reading the tail
 * of a long `_delta_log/` costs the tail, not every commit ever written (a plain listing returns
 * all keys under the prefix, 1000 a request). Only for S3A; loaded only when the table is on it.
 */
private[logstore] object S3Listing {
  /** The objects directly under `dir` whose names are at least `from`, sorted by name. */
  def listFrom(fs: FileSystem, dir: Path, from: String): Seq[FileStatus] = {
    val s3a = fs.asInstanceOf[S3AFileSystem]
    val prefix = s3a.pathToKey(dir).stripSuffix("/") + "/"
    val client = s3a.getS3AInternals.getAmazonS3Client("listing a Delta log from a version on")
    val request = ListObjectsV2Request.builder().bucket(s3a.getBucket).prefix(prefix).delimiter("/")
    // start-after is exclusive, and echoed in the XML response (so no exotic characters): `from` with its last
    // character one lower sorts before every name starting with `from`; the few names between are filtered below
    if (from.nonEmpty) request.startAfter(prefix + from.init + (from.last - 1).toChar)
    client.listObjectsV2Paginator(request.build()).contents().asScala.toSeq.map { o =>
      val path = s3a.keyToQualifiedPath(o.key())
      new FileStatus(o.size(), false, 1, s3a.getDefaultBlockSize(path), o.lastModified().toEpochMilli, path)
    }.filter(_.getPath.getName >= from).sortBy(_.getPath.getName)
  }
}

/**
 * A store whose log may live on S3A: its listings from a name on use S3's start-after listing
 * there. (The class name is compared so that S3A need not be on the classpath elsewhere.)
 */
trait S3StartAfterListing extends LogStore {
  override def list(dir: Path, from: String, keep: String => Boolean): Seq[FileStatus] = {
    val fileSystem = fs(dir)
    if (from.isEmpty || fileSystem.getClass.getName != "org.apache.hadoop.fs.s3a.S3AFileSystem") super.list(dir, from, keep)
    else S3Listing.listFrom(fileSystem, dir, from).filter(st => keep(st.getPath.getName))
  }
}
