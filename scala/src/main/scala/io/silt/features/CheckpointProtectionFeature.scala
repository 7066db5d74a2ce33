package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * Checkpoint protection (left by DROP FEATURE): the commits and checkpoints before
 * `delta.requireCheckpointProtectionBeforeVersion` go only all at once (`checkpoint.LogCleanup`).
 * Dropped only with TRUNCATE HISTORY, once that history is gone; the property goes with it.
 */
object CheckpointProtectionFeature extends Feature("checkpointProtection", Writer, ReadWrite) {
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Nil, DropCleanup.TruncateProtectedHistory,
    strip = m => m.copy(configuration = m.configuration - TableProperties.RequireCheckpointProtectionBeforeVersion.key),
    onlyWithTruncateHistory = true))
}
