package io.silt.features

import io.silt.features.FeatureKind.{ReaderWriter, Writer}
import io.silt.features.FeatureSupport.Refused

/** The Delta 4.4 features Silt does not implement: tables declaring them are refused, naming the feature and why. */
object RefusedFeatures {
  private def refused(name: String, kind: FeatureKind, why: String): TableFeature = new Feature(name, kind, Refused(why)) {}

  val all: Seq[TableFeature] = Seq(
    refused("catalogManaged", ReaderWriter, "a catalog owns its commits, and Silt has no catalog commit client"),
    refused("coordinatedCommits-preview", Writer, "a commit coordinator owns its commits, and Silt has no coordinator client"),
    refused("icebergCompatV3", Writer, "Silt writes Iceberg metadata of format version 2 only (icebergCompatV1, V2)"),
    refused("variantShredding", ReaderWriter, "Silt reads and writes VARIANT unshredded only"),
    refused("variantShredding-preview", ReaderWriter, "Silt reads and writes VARIANT unshredded only"),
    refused("geospatial", ReaderWriter, "Silt has no geometry or geography types"),
    refused("geospatial-dev", ReaderWriter, "Silt has no geometry or geography types"),
    refused("materializePartitionColumns", Writer, "Silt does not write partition values into data files"),
    refused("adaptiveMetadata-preview", ReaderWriter, "a preview Silt does not implement"))
}
