package io.silt.dv

import java.io.{DataOutputStream, EOFException}
import java.nio.ByteBuffer
import java.util.UUID
import java.util.zip.CRC32

import io.silt.errors.CorruptDeletionVectorException
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{ChecksumFileSystem, Path}

/**
 * Reads and writes deletion vectors. A DV file is version byte 1, then per DV a big-endian
 * 4-byte size, the bitmap, and a big-endian CRC-32 of the bitmap; a descriptor's offset points
 * at the size. Every check failure names the DV and the data file it belongs to.
 */
object DeletionVectorStore {
  val FormatVersion: Int = 1

  /** The deleted rows of `dataFile` according to `dv`, checked against size, CRC and cardinality. */
  def load(dv: DeletionVectorDescriptor, tablePath: Path, dataFile: String, conf: Configuration): RoaringBitmapArray = {
    def fail(detail: String, cause: Throwable = null) = throw new CorruptDeletionVectorException(dataFile, dv.toString, detail, cause)
    val bytes = if (dv.isInline) {
      try dv.inlineBytes catch { case e: IllegalArgumentException => fail(s"inline data is not valid Z85: ${e.getMessage}", e) }
    } else readFromFile(dv, tablePath, dataFile, conf)
    val bitmap = try RoaringBitmapArray.deserialize(bytes) catch {
      case e: IllegalArgumentException => fail(e.getMessage, e)
    }
    if (bitmap.cardinality != dv.cardinality) {
      fail(s"the bitmap holds ${bitmap.cardinality} rows but the descriptor says ${dv.cardinality}")
    }
    bitmap
  }

  /**
   * Three positioned reads (the version byte, the size, then bitmap and checksum) on the file
   * system without Hadoop's own checksum files: the DV's CRC-32 already covers the bitmap, and a
   * scan loads one DV per data file, and opening the `.crc` beside each, checking it as well and
   * asking for the file's length made a load 2-3x slower. The length is asked for only to explain
   * a failure.
   */
  private def readFromFile(dv: DeletionVectorDescriptor, tablePath: Path, dataFile: String, conf: Configuration): Array[Byte] = {
    def fail(detail: String, cause: Throwable = null) = throw new CorruptDeletionVectorException(dataFile, dv.toString, detail, cause)
    val path = try dv.filePath(tablePath) catch { case e: Exception => fail(s"cannot resolve its file: ${e.getMessage}", e) }
    val fs = path.getFileSystem(conf) match {
      case checksummed: ChecksumFileSystem => checksummed.getRawFileSystem
      case other => other
    }
    val in = try fs.open(path) catch {
      case e: java.io.FileNotFoundException => fail(s"its file $path does not exist", e)
    }
    val offset = dv.offset.getOrElse(1)
    def pastTheEnd() = fail(s"offset $offset and size ${dv.sizeInBytes} reach past the end of $path (${fs.getFileStatus(path).getLen} bytes)")
    def read(position: Long, length: Int): Array[Byte] = {
      val bytes = new Array[Byte](length)
      try in.readFully(position, bytes) catch { case _: EOFException => pastTheEnd() }
      bytes
    }
    try {
      if (offset < 1) pastTheEnd()
      val version = read(0, 1)(0)
      if (version != FormatVersion) fail(s"$path has format version $version, not $FormatVersion")
      val size = ByteBuffer.wrap(read(offset, 4)).getInt
      if (size != dv.sizeInBytes) {
        if (offset.toLong + 8 + dv.sizeInBytes > fs.getFileStatus(path).getLen) pastTheEnd()
        fail(s"$path holds $size bytes at offset $offset but the descriptor says ${dv.sizeInBytes}")
      }
      val framed = read(offset + 4L, size + 4)
      val expected = ByteBuffer.wrap(framed, size, 4).getInt
      val crc = new CRC32()
      crc.update(framed, 0, size)
      if (crc.getValue.toInt != expected) fail(f"checksum mismatch in $path at offset $offset: stored $expected%08x, computed ${crc.getValue}%08x")
      java.util.Arrays.copyOf(framed, size)
    } catch {
      case e: CorruptDeletionVectorException => throw e
      case e: java.io.IOException => fail(s"cannot read $path: $e", e)
    } finally in.close()
  }

  /**
   * Writes bitmaps into one new DV file under the table root and returns their descriptors, in
   * order. Bitmaps of at most `inlineThreshold` bytes are stored inline in the log instead.
   */
  def write(bitmaps: Seq[RoaringBitmapArray], tablePath: Path, conf: Configuration, inlineThreshold: Int): Seq[DeletionVectorDescriptor] = {
    val serialized = bitmaps.map(_.serialize()).toIndexedSeq
    val onDisk = serialized.indices.filter(i => serialized(i).length > inlineThreshold)
    val offsets = new Array[Int](serialized.size)
    val uuid = UUID.randomUUID()
    if (onDisk.nonEmpty) {
      val path = new Path(tablePath, DeletionVectorDescriptor.fileName(uuid))
      val out = new DataOutputStream(path.getFileSystem(conf).create(path, false))
      try {
        out.writeByte(FormatVersion)
        onDisk.foreach { i =>
          val bytes = serialized(i)
          offsets(i) = out.size()
          out.writeInt(bytes.length)
          out.write(bytes)
          val crc = new CRC32()
          crc.update(bytes)
          out.writeInt(crc.getValue.toInt)
        }
      } finally out.close()
    }
    serialized.indices.map { i =>
      val (bitmap, bytes) = (bitmaps(i), serialized(i))
      if (bytes.length <= inlineThreshold) DeletionVectorDescriptor.inline(bytes, bitmap.cardinality, bitmap.last)
      else DeletionVectorDescriptor.onDisk(uuid, "", offsets(i), bytes.length, bitmap.cardinality, bitmap.last)
    }
  }
}
