package io.silt.write

import io.silt.features.ColumnDefaultsFeature
import org.apache.spark.sql.Column
import org.apache.spark.sql.connector.catalog.{Column => V2Column, ColumnDefaultValue}
import org.apache.spark.sql.functions.{expr, lit}
import org.apache.spark.sql.silt.SparkInternals
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

/** Column defaults: kept as `CURRENT_DEFAULT` in a field's metadata, filled in where a write gives no value. */
object ColumnDefaults {
  /** A field's default expression (SQL), if it has one. */
  def of(f: StructField): Option[String] =
    if (f.metadata.contains(ColumnDefaultsFeature.Key)) Some(f.metadata.getString(ColumnDefaultsFeature.Key)) else None

  /** `f` with default `sql` (None: without a default). */
  def withDefault(f: StructField, sql: Option[String]): StructField = {
    val b = new MetadataBuilder().withMetadata(f.metadata).remove(ColumnDefaultsFeature.Key)
    sql.foreach(b.putString(ColumnDefaultsFeature.Key, _))
    f.copy(metadata = b.build())
  }

  /** The value of a column a write leaves out: its default, else null. */
  def valueFor(f: StructField): Column = of(f).map(sql => expr(sql)).getOrElse(lit(null)).cast(f.dataType)

  /**
   * Spark's columns of a table schema with their defaults, so that its analyzer fills INSERT's
   * missing columns and `DEFAULT` keywords. Rows already written never take a default (Delta adds
   * no column with one), so the value for them is null.
   */
  def v2Columns(schema: StructType, base: Array[V2Column]): Array[V2Column] = base.map { c =>
    schema.fields.find(_.name == c.name).flatMap(of) match {
      case Some(sql) => V2Column.create(c.name, c.dataType, c.nullable, c.comment,
        new ColumnDefaultValue(sql, SparkInternals.nullLiteral(c.dataType)), c.metadataInJSON)
      case None => c
    }
  }
}
