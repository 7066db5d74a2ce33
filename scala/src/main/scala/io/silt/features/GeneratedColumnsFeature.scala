package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * Generated columns (`GENERATED ALWAYS AS (expr)`, kept as `delta.generationExpression` in a
 * field's metadata): computed where a write leaves them out, and every written row checked
 * against its expression (`write.GeneratedColumns`).
 */
object GeneratedColumnsFeature extends Feature("generatedColumns", Writer, ReadWrite) {
  /** The field metadata key holding a generated column's expression, as Delta names it. */
  val Key = "delta.generationExpression"
  /** A field's generation expression (SQL), if it is a generated column. */
  def expressionOf(f: org.apache.spark.sql.types.StructField): Option[String] =
    if (f.metadata.contains(Key)) Some(f.metadata.getString(Key)) else None
  override def legacyVersions: Option[(Int, Int)] = Some((1, 4))
  override def neededBy(t: TableShape): Boolean = t.anyFieldMetadata(Key)
}
