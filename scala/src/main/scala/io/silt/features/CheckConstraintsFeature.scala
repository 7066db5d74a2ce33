package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** CHECK constraints (`delta.constraints.<name>`), checked on every write by `write.Constraints`. */
object CheckConstraintsFeature extends Feature("checkConstraints", Writer, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 3))
  override def neededBy(t: TableShape): Boolean = t.properties.checkConstraints.nonEmpty
  override def drop: Option[FeatureDrop] =
    Some(FeatureDrop(Nil, blockers = m => TableProperties(m.configuration).checkConstraints.keys.toSeq.sorted))
}
