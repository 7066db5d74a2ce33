package io.silt.write

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.ActionCodec
import io.silt.txn.Operation
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * ALTER TABLE … ADD COLUMNS: new nullable columns, at the top level or inside structs (also of
 * array elements and map keys or values), placed FIRST, AFTER a column, or last. Files already
 * written have no such column, so every existing row reads null there.
 */
object AddColumns {
  def run(spark: SparkSession, tablePath: Path, columns: Seq[TableChange.AddColumn]): StructType = {
    val txn = ExistingTable.begin(spark, tablePath)
    val current = txn.metadata
    val schema = columns.foldLeft(current.schema)(add(tablePath, _, _))
    val m = current.copy(schemaString = schema.json)
    txn.updateMetadata(m)
    TableWriter.upgradeProtocol(txn, txn.metadata)
    txn.readFiles(Nil)
    txn.commit(Nil, Operation.AddColumns(columns.map(describe)))
    schema
  }

  private def add(tablePath: Path, schema: StructType, c: TableChange.AddColumn): StructType = {
    val name = c.fieldNames.mkString(".")
    def refuse(why: String) = throw new InvalidTableOperationException(s"ALTER TABLE $tablePath ADD COLUMNS $name: $why")
    if (!c.isNullable) refuse("a new column must be nullable (the rows already written have no value for it), as " +
      s"in Delta Lake; add it nullable, fill it with UPDATE, then add a CHECK constraint ($name IS NOT NULL)")
    if (c.defaultValue != null) refuse("a new column cannot have a DEFAULT (as in Delta Lake: rows already written would not " +
      "have it); add the column, then ALTER COLUMN … SET DEFAULT")
    val field = newField(c)
    SchemaPaths.updateStruct(schema, c.fieldNames.toSeq.init, refuse) { s =>
      if (s.fieldNames.exists(_.equalsIgnoreCase(field.name))) refuse(s"a column ${field.name} already exists there")
      SchemaPaths.place(s.fields.toSeq, field, Option(c.position), refuse)
    }
  }

  private def newField(c: TableChange.AddColumn): StructField =
    Option(c.comment).foldLeft(StructField(c.fieldNames.last, c.dataType, nullable = true))(_.withComment(_))

  /** One column as Delta's commitInfo describes it: the field as a JSON object and its position. */
  private def describe(c: TableChange.AddColumn): String = {
    val o = ActionCodec.mapper.createObjectNode()
    val field = SchemaPaths.fieldJson(c.fieldNames.mkString("."), newField(c))
    o.set[com.fasterxml.jackson.databind.JsonNode]("column", ActionCodec.mapper.readTree(field))
    Option(c.position).flatMap(SchemaPaths.describe).foreach(o.put("position", _))
    ActionCodec.mapper.writeValueAsString(o)
  }
}
