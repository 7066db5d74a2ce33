package io.silt.features

import io.silt.actions.{AddFile, Metadata, RemoveFile}
import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** Deletion vectors (`delta.enableDeletionVectors`): rows deleted by a bitmap beside the file, not a rewrite. */
object DeletionVectorsFeature extends Feature("deletionVectors", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.properties.deletionVectorsEnabled
  override def drop: Option[FeatureDrop] =
    Some(FeatureDrop(Seq(TableProperties.EnableDeletionVectors.key -> None), DropCleanup.PurgeDeletionVectors, traces = {
      case m: Metadata => TableProperties(m.configuration).deletionVectorsEnabled
      case a: AddFile => a.deletionVector.isDefined
      case r: RemoveFile => r.deletionVector.isDefined
      case _ => false
    }))
}
