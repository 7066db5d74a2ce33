package io.silt.dv

import java.net.URI
import java.util.UUID

import org.apache.hadoop.fs.Path

/** Where a deletion vector is stored: the protocol's one-letter `storageType`. */
sealed abstract class DvStorage(val code: String) extends Serializable {
  override def toString: String = code
}

object DvStorage {
  /** In a UUID-named file of the table (`u`: an optional prefix and the Z85-encoded UUID). */
  case object Relative extends DvStorage("u")
  /** Inline in the log, Z85-encoded (`i`). */
  case object Inline extends DvStorage("i")
  /** In a file named by an absolute path (`p`). */
  case object Absolute extends DvStorage("p")

  def fromCode(code: String): DvStorage = Seq(Relative, Inline, Absolute).find(_.code == code).getOrElse(
    throw new IllegalArgumentException(s"unknown deletion vector storage type '$code' (expected u, i or p)"))
}

/** Where a deletion vector lives and how big it is, as it appears in add/remove actions. */
final case class DeletionVectorDescriptor(
    storageType: DvStorage,
    pathOrInlineDv: String,
    offset: Option[Int],
    sizeInBytes: Int,
    cardinality: Long,
    maxRowIndex: Option[Long] = None) {

  /** The identity of this DV in log replay: storage type, path or inline bytes, and offset. */
  def uniqueId: String = storageType.code + pathOrInlineDv + offset.map(o => s"@$o").getOrElse("")

  def isInline: Boolean = storageType == DvStorage.Inline

  /** The DV file this descriptor points into (not for inline DVs). */
  def filePath(tablePath: Path): Path = storageType match {
    case DvStorage.Relative =>
      val encoded = pathOrInlineDv.takeRight(DeletionVectorDescriptor.UuidLength)
      val prefix = pathOrInlineDv.dropRight(DeletionVectorDescriptor.UuidLength)
      val name = DeletionVectorDescriptor.fileName(Z85.decodeUuid(encoded))
      if (prefix.isEmpty) new Path(tablePath, name) else new Path(new Path(tablePath, prefix), name)
    case DvStorage.Absolute => new Path(new URI(pathOrInlineDv))
    case DvStorage.Inline => throw new IllegalArgumentException("an inline deletion vector has no file")
  }

  /** The bitmap bytes of an inline DV. */
  def inlineBytes: Array[Byte] = {
    require(isInline, "not an inline deletion vector")
    Z85.decode(pathOrInlineDv).take(sizeInBytes)
  }

  override def toString: String = s"$storageType:$pathOrInlineDv${offset.map("@" + _).getOrElse("")}"
}

object DeletionVectorDescriptor {
  private val UuidLength = 20

  def fileName(uuid: UUID): String = s"deletion_vector_$uuid.bin"

  /** A DV in a `u` file of the table, at `offset`. */
  def onDisk(uuid: UUID, prefix: String, offset: Int, sizeInBytes: Int, cardinality: Long, maxRowIndex: Option[Long]): DeletionVectorDescriptor =
    DeletionVectorDescriptor(DvStorage.Relative, prefix + Z85.encodeUuid(uuid), Some(offset), sizeInBytes, cardinality, maxRowIndex)

  /** A DV stored inline in the log. */
  def inline(bitmap: Array[Byte], cardinality: Long, maxRowIndex: Option[Long]): DeletionVectorDescriptor = {
    val padded = java.util.Arrays.copyOf(bitmap, (bitmap.length + 3) / 4 * 4)
    DeletionVectorDescriptor(DvStorage.Inline, Z85.encode(padded), None, bitmap.length, cardinality, maxRowIndex)
  }
}
