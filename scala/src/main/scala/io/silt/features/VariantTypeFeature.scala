package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.{ReadWrite, Refused}
import io.silt.shims.SparkTypes

/**
 * VARIANT columns, stored unshredded (a value and a metadata binary), without min/max statistics.
 * `preview`: the name Delta 3.x wrote. Spark 3.5 has no VARIANT type: there the feature is refused.
 */
final class VariantTypeFeature(preview: Boolean)
    extends Feature(if (preview) "variantType-preview" else "variantType", ReaderWriter,
      if (SparkTypes.variant.isDefined) ReadWrite
      else Refused("VARIANT columns need Spark 4.0 or later (Spark 3.5 has no VARIANT type); read the table there")) {
  override def neededBy(t: TableShape): Boolean = !preview && t.containsType(SparkTypes.variant.contains)
}
