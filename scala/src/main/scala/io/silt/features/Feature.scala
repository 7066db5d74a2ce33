package io.silt.features

/** A table feature declared by its name, kind and support; behaviour comes from overriding [[TableFeature]]'s hooks. */
abstract class Feature(val name: String, val kind: FeatureKind, val support: FeatureSupport) extends TableFeature
