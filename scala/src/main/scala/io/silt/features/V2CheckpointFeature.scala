package io.silt.features

import io.silt.actions.{Metadata, UnknownAction}
import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** UUID-named V2 checkpoints with sidecars (`delta.checkpointPolicy = v2`). */
object V2CheckpointFeature extends Feature("v2Checkpoint", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.properties.checkpointPolicy == CheckpointPolicy.V2
  // The drop's own checkpoint is then a classic one, which readers of the downgraded table start from.
  override def drop: Option[FeatureDrop] =
    Some(FeatureDrop(Seq(TableProperties.CheckpointPolicyProperty.key -> Some(CheckpointPolicy.Classic.name)), traces = {
      case m: Metadata => TableProperties(m.configuration).checkpointPolicy == CheckpointPolicy.V2
      case u: UnknownAction => u.key == "checkpointMetadata" || u.key == "sidecar"
      case _ => false
    }))
}
