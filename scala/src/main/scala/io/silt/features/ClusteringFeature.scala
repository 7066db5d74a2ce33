package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/** Liquid clustering: the clustering columns in a domain ([[Clustering]]). */
object ClusteringFeature extends Feature(Clustering.Feature, Writer, ReadWrite) {
  override def requires: Seq[String] = Seq(DomainMetadataFeature.name)
  override def neededBy(t: TableShape): Boolean = t.clustered
}
