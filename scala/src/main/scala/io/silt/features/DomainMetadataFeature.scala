package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** `domainMetadata` actions (clustering columns, row tracking's high-water mark). */
object DomainMetadataFeature extends Feature("domainMetadata", Writer, ReadWrite)
