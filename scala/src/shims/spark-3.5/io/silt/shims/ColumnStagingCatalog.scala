package io.silt.shims

import java.util

import org.apache.spark.sql.connector.catalog.{Column, ColumnDefaultValue, Identifier, StagedTable, StagingTableCatalog}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{Metadata, StructType}

/**
 * A staging catalog that stages tables from their columns. Spark 3.5's interface still declares the
 * forms that take a schema: each is the column form of the same fields.
 */
trait ColumnStagingCatalog extends StagingTableCatalog {
  override def stageCreate(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = stageCreate(ident, columnsOf(schema), partitions, properties)

  override def stageReplace(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = stageReplace(ident, columnsOf(schema), partitions, properties)

  override def stageCreateOrReplace(ident: Identifier, schema: StructType, partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = stageCreateOrReplace(ident, columnsOf(schema), partitions, properties)

  private def columnsOf(schema: StructType): Array[Column] = schema.fields.map { f =>
    Column.create(f.name, f.dataType, f.nullable, f.getComment().orNull, null: ColumnDefaultValue,
      if (f.metadata == Metadata.empty) null else f.metadata.json)
  }
}
