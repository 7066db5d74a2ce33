package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadOnly

/** Column defaults (`allowColumnDefaults`; `CURRENT_DEFAULT` in a field's metadata). */
object ColumnDefaultsFeature extends Feature("allowColumnDefaults", Writer, ReadOnly(
    "Silt does not fill column defaults yet, so a write could store NULL where the default belongs")) {
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata("CURRENT_DEFAULT")
}
