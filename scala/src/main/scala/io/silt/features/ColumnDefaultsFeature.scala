package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * Column defaults (`allowColumnDefaults`): a column's `CURRENT_DEFAULT` (a SQL expression) fills
 * it wherever a write gives no value or the `DEFAULT` keyword (`write.ColumnDefaults`).
 */
object ColumnDefaultsFeature extends Feature("allowColumnDefaults", Writer, ReadWrite) {
  /** The field metadata key holding a column's default, as Spark and Delta name it. */
  val Key = "CURRENT_DEFAULT"
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata(Key)
}
