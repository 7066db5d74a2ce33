package io.silt.features

import io.silt.actions.Metadata
import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** Column mapping (`delta.columnMapping.mode` name or id): logical names over physical ones ([[ColumnMapping]]). */
object ColumnMappingFeature extends Feature("columnMapping", ReaderWriter, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((2, 5))
  override def neededBy(t: TableShape): Boolean = t.properties.columnMappingMode != ColumnMappingMode.None
  // The mode is taken off by the rewrite itself (optimize.ColumnMappingRemoval), as Delta's REMOVE COLUMN MAPPING.
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Nil, DropCleanup.RemoveColumnMapping, traces = {
    case m: Metadata => TableProperties(m.configuration).columnMappingMode != ColumnMappingMode.None
    case _ => false
  }))
}
