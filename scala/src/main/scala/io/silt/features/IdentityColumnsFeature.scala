package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadOnly

/** Identity columns (`delta.identity.*` in a field's metadata). */
object IdentityColumnsFeature extends Feature("identityColumns", Writer, ReadOnly(
    "Silt does not assign identity values yet, so a write could repeat or omit them")) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 6))
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata("delta.identity.start")
}
