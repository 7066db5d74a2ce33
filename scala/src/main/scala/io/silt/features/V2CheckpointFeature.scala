package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** UUID-named V2 checkpoints with sidecars (`delta.checkpointPolicy = v2`). */
object V2CheckpointFeature extends Feature("v2Checkpoint", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.properties.checkpointPolicy == CheckpointPolicy.V2
}
