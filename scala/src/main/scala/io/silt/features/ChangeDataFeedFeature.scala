package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** The change data feed (`delta.enableChangeDataFeed`): DML writes change files ([[ChangeDataFeed]]). */
object ChangeDataFeedFeature extends Feature("changeDataFeed", Writer, ReadWrite) {
  override def legacyVersions: Option[(Int, Int)] = Some((1, 4))
  override def neededBy(t: TableShape): Boolean = t.properties.changeDataFeed
}
