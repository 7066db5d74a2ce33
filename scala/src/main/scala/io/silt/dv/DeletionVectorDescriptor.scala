package io.silt.dv

/**
 * Where a deletion vector lives and how big it is, as it appears in add/remove actions.
 * `storageType` is `u` (relative, UUID-named file), `i` (inline, Z85) or `p` (absolute path).
 */
final case class DeletionVectorDescriptor(
    storageType: String,
    pathOrInlineDv: String,
    offset: Option[Int],
    sizeInBytes: Int,
    cardinality: Long,
    maxRowIndex: Option[Long] = None) {

  /** The identity of this DV in log replay: storage type, path or inline bytes, and offset. */
  def uniqueId: String = storageType + pathOrInlineDv + offset.map(o => s"@$o").getOrElse("")
}
