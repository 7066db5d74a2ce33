package io.silt.dml

import io.silt.log.Snapshot

/** Whether a table writes deletion vectors: only when its property says so (and its protocol allows). */
object DeletionVectors {
  val Property = "delta.enableDeletionVectors"

  def enabled(snapshot: Snapshot): Boolean =
    snapshot.metadata.configuration.get(Property).exists(_.equalsIgnoreCase("true")) &&
      snapshot.protocol.writerFeatures.exists(_.contains("deletionVectors"))
}
