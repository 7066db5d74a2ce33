package io.silt.features

import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite
import org.apache.spark.sql.types.VariantType

/**
 * VARIANT columns, stored unshredded (a value and a metadata binary), without min/max statistics.
 * `preview`: the name Delta 3.x wrote.
 */
final class VariantTypeFeature(preview: Boolean)
    extends Feature(if (preview) "variantType-preview" else "variantType", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = !preview && t.containsType(_ == VariantType)
}
