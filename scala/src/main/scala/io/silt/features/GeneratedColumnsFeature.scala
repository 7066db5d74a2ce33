package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadOnly

/** Generated columns (`delta.generationExpression` in a field's metadata). */
object GeneratedColumnsFeature extends Feature("generatedColumns", Writer, ReadOnly(
    "Silt does not compute generated columns yet, so a write could store values that break their expressions")) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 4))
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata("delta.generationExpression")
}
