package io.silt.dml

import io.silt.features.TableProperties
import io.silt.log.Snapshot
/** Whether a table writes deletion vectors: only when its property says so (and its protocol allows). */
object DeletionVectors {
  def enabled(snapshot: Snapshot): Boolean =
    TableProperties(snapshot.metadata.configuration).deletionVectorsEnabled &&
      snapshot.protocol.writerFeatures.exists(_.contains("deletionVectors"))
}
