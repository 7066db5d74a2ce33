package io.silt.write

import io.silt.actions.Metadata
import io.silt.features.{TableProperties, TypeChanges}
import io.silt.shims.ParquetWidening
import org.apache.spark.sql.types._

/** A column's type widened in the schema alone: old files keep their type, readers widen their values. */
object TypeWidening {
  /**
   * `field` with type `to` at `inner` (an array's `element`, a map's `key` or `value`; empty: the
   * field itself) and the change recorded in its `delta.typeChanges`; `refuse` names what stops it
   * (the table property off, or a change that is not a widening Delta allows). The same type: no change.
   */
  def widen(table: Metadata, field: StructField, inner: Seq[String], to: DataType, refuse: String => Nothing): StructField = {
    val from = SchemaPaths.typeAt(field.dataType, inner)
    if (from == to) return field
    def change = s"its type cannot change from ${from.sql} to ${to.sql}"
    if (!TypeChanges.isWidening(from, to)) {
      refuse(s"$change: Delta widens integers to wider integers, decimals or double, float to double, date to " +
        "timestamp_ntz and decimals to wider decimals (precision and scale growing, the integer digits too)")
    }
    if (!ParquetWidening.readable(from, to)) refuse(s"$change on this Spark: ${ParquetWidening.limits}")
    if (!TableProperties(table.configuration).typeWidening) {
      refuse(s"$change unless type widening is on: ALTER TABLE … SET TBLPROPERTIES " +
        s"('${TableProperties.EnableTypeWidening.key}' = 'true') first")
    }
    recorded(field, inner, from, to)
  }

  /**
   * Whether a write with schema evolution widens a column of type `from` to the data's `to` by
   * itself: a widening Delta allows, except integers to decimal or double, which as in Delta Lake
   * only an ALTER TABLE makes (an integer column silently turned decimal is rarely wanted).
   */
  def automatic(from: DataType, to: DataType): Boolean = TypeChanges.isWidening(from, to) && ParquetWidening.readable(from, to) && !(
    Seq(ByteType, ShortType, IntegerType, LongType).contains(from) && (to == DoubleType || to.isInstanceOf[DecimalType]))

  /** Why this Spark cannot make a change Delta allows (its Parquet reader could not read the older files), if it cannot. */
  def beyondThisSpark(from: DataType, to: DataType): Option[String] =
    Some(ParquetWidening.limits).filter(_ => TypeChanges.isWidening(from, to) && !ParquetWidening.readable(from, to))

  /** `field` of type `to`, the change appended to its `delta.typeChanges`. */
  def recorded(field: StructField, to: DataType): StructField = recorded(field, Nil, field.dataType, to)

  /** `field` with `to` at `inner` in place of `from`, the change (and its `fieldPath`) appended to its `delta.typeChanges`. */
  private def recorded(field: StructField, inner: Seq[String], from: DataType, to: DataType): StructField = {
    val history = if (field.metadata.contains(TypeChanges.Key)) field.metadata.getMetadataArray(TypeChanges.Key).toSeq else Nil
    val entry = new MetadataBuilder().putString("toType", to.typeName).putString("fromType", from.typeName)
    if (inner.nonEmpty) entry.putString("fieldPath", inner.mkString("."))
    val metadata = new MetadataBuilder().withMetadata(field.metadata)
      .putMetadataArray(TypeChanges.Key, (history :+ entry.build()).toArray).build()
    field.copy(dataType = SchemaPaths.within(field.dataType, inner)(_ => to), metadata = metadata)
  }
}
