package io.silt.features

import io.silt.actions.Metadata
import io.silt.errors.UnsupportedTableFeatureException
import io.silt.features.FeatureKind.ReaderWriter
import io.silt.features.FeatureSupport.ReadWrite
import io.silt.shims.ParquetWidening

/**
 * Type widening (`delta.enableTypeWidening`): files may hold narrower types than the schema, each
 * change recorded in `delta.typeChanges` ([[TypeChanges]]). `preview`: the name Delta 3.x wrote.
 */
final class TypeWideningFeature(preview: Boolean)
    extends Feature(if (preview) "typeWidening-preview" else "typeWidening", ReaderWriter, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = !preview && t.properties.typeWidening
  // Delta's steps: the property unset, the files written before a change rewritten (optimize.WidenedFiles),
  // the change history removed.
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Seq(TableProperties.EnableTypeWidening.key -> None),
    DropCleanup.RewriteWidenedFiles, strip = m => m.copy(schemaString = TypeChanges.without(m.schema).json),
    traces = { case m: Metadata => TypeChanges.all(m.schema).nonEmpty; case _ => false }))

  // A reader must know every change it is asked to apply to old files, and this Spark's Parquet reader apply it.
  override def checkRead(tablePath: String, m: Metadata): Unit = {
    def refuse(c: TypeChange, why: String) =
      throw new UnsupportedTableFeatureException(tablePath, Seq(s"type change ${c.from.sql} -> ${c.to.sql} of ${c.path}"), why)
    val changes = TypeChanges.all(m.schema)
    changes.find(c => !TypeChanges.isWidening(c.from, c.to)).foreach(refuse(_,
      "Silt reads the widenings Delta allows (integers to wider integers, decimal or double; float to double; " +
        "date to timestamp_ntz; decimals to wider decimals)"))
    changes.find(c => !ParquetWidening.readable(c.from, c.to)).foreach(refuse(_, ParquetWidening.limits))
  }
}
