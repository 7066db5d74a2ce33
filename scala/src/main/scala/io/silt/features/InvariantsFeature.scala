package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** Column invariants (`delta.invariants` in a field's metadata), checked on every write by `write.Constraints`. */
object InvariantsFeature extends Feature("invariants", Writer, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 2))
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata("delta.invariants")
}
