package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite

/** Column mapping (`delta.columnMapping.mode` name or id): logical names over physical ones ([[ColumnMapping]]). */
object ColumnMappingFeature extends Feature("columnMapping", ReaderWriter, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((2, 5))
  override def neededBy(t: TableShape): Boolean = t.properties.columnMappingMode != ColumnMappingMode.None
  override def dropRefusal: String = "Silt cannot drop it yet (Delta rewrites every file under the logical names " +
    "first); drop it with Delta Lake, or keep it"
}
