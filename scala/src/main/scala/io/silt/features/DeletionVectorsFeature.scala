package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** Deletion vectors (`delta.enableDeletionVectors`): rows deleted by a bitmap beside the file, not a rewrite. */
object DeletionVectorsFeature extends Feature("deletionVectors", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.properties.deletionVectorsEnabled
  override def drop: Option[FeatureDrop] =
    Some(FeatureDrop(Seq(TableProperties.EnableDeletionVectors -> None), DropCleanup.PurgeDeletionVectors))
}
