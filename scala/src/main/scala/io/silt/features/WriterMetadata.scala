package io.silt.features

import org.apache.spark.sql.types.{MetadataBuilder, StructType}

/** The column metadata only writers use: identity specs and generation expressions. */
object WriterMetadata {
  private val Keys = Seq(IdentityColumns.Start, IdentityColumns.Step, IdentityColumns.HighWaterMark,
    IdentityColumns.AllowExplicitInsert, GeneratedColumnsFeature.Key)

  /**
   * `schema` without it, as Delta Lake shows a table's columns to readers, and as data read from such
   * a table carries none into the table it is written to (a DataFrame write of an identity table's rows
   * creates plain columns).
   */
  def stripped(schema: StructType): StructType = StructType(schema.fields.map { f =>
    val keys = Keys.filter(f.metadata.contains)
    if (keys.isEmpty) f
    else f.copy(metadata = keys.foldLeft(new MetadataBuilder().withMetadata(f.metadata))(_.remove(_)).build())
  })
}
