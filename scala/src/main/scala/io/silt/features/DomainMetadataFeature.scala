package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * `domainMetadata` actions (clustering columns, row tracking's high-water mark). Dropped, as Delta
 * drops it, once no feature needing it is left and the table has no domain.
 */
object DomainMetadataFeature extends Feature("domainMetadata", Writer, ReadWrite) {
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Nil, noDomainsLeft = true))
}
