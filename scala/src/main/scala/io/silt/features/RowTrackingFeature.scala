package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadOnly

/** Row tracking: stable row ids and row commit versions. */
object RowTrackingFeature extends Feature("rowTracking", Writer, ReadOnly(
    "Silt does not assign row ids yet, so a write would leave rows without them")) {
  override def requires: Seq[String] = Seq(DomainMetadataFeature.name)
}
