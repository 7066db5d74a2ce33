package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * Checkpoint protection (left by DROP FEATURE): the commits and checkpoints before
 * `delta.requireCheckpointProtectionBeforeVersion` stay; Silt's log cleanup then deletes nothing
 * that old (`checkpoint.LogCleanup`).
 */
object CheckpointProtectionFeature extends Feature("checkpointProtection", Writer, ReadWrite) {
  override def dropRefusal: String = "Delta Lake drops it only with TRUNCATE HISTORY, once the history before " +
    "the protected version is gone; Silt does not truncate history"
}
