package io.silt.write

import io.silt.errors.InvalidTableOperationException
import io.silt.txn.Operation
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * ALTER TABLE … ALTER COLUMN on one column: its comment, DROP NOT NULL and its position (FIRST /
 * AFTER), its type (a widening, on a table with `delta.enableTypeWidening`). One commit, which Delta
 * records as CHANGE COLUMN; no file is rewritten. As in Delta Lake, a nullable column cannot become
 * NOT NULL.
 */
object ChangeColumn {
  def run(spark: SparkSession, tablePath: Path, changes: Seq[TableChange.ColumnChange]): StructType = {
    val paths = changes.map(_.fieldNames.toSeq).distinct
    if (paths.size != 1) throw new InvalidTableOperationException(
      s"ALTER TABLE $tablePath: change one column per statement, not ${paths.map(_.mkString(".")).mkString(", ")}")
    val name = paths.head.mkString(".")
    def refuse(why: String): Nothing = throw new InvalidTableOperationException(s"ALTER TABLE $tablePath ALTER COLUMN $name: $why")
    val txn = ExistingTable.begin(spark, tablePath)
    val current = txn.metadata
    // An array's element or a map's key or value: only its type changes, recorded on the field holding it.
    val (path, inner) = SchemaPaths.splitAtField(current.schema, paths.head, refuse)
    if (inner.nonEmpty && !changes.forall(_.isInstanceOf[TableChange.UpdateColumnType])) {
      refuse(s"only the type of ${inner.last} can change (a widening)")
    }
    var position: Option[TableChange.ColumnPosition] = None
    var changed: Option[StructField] = None
    val schema = SchemaPaths.updateStruct(current.schema, path.init, refuse) { s =>
      var field = s.fields(SchemaPaths.indexOf(s, path.last, refuse))
      changes.foreach {
        case c: TableChange.UpdateColumnComment => field = field.withComment(c.newComment)
        case c: TableChange.UpdateColumnNullability if field.nullable && !c.nullable =>
          refuse("a nullable column cannot become NOT NULL (as in Delta Lake); add a CHECK constraint " +
            s"($name IS NOT NULL), which checks the rows already there, instead")
        case c: TableChange.UpdateColumnNullability => field = field.copy(nullable = c.nullable)
        case c: TableChange.UpdateColumnPosition => position = Some(c.position)
        case c: TableChange.UpdateColumnDefaultValue =>
          field = ColumnDefaults.withDefault(field, Option(c.newDefaultValue()).filter(_.nonEmpty))
        case c: TableChange.UpdateColumnType => field = TypeWidening.widen(current, field, inner, c.newDataType, refuse)
        case other => refuse(s"${other.getClass.getSimpleName} is not supported")
      }
      changed = Some(field)
      if (position.isDefined) SchemaPaths.place(s.fields.toSeq, field, position, refuse)
      else StructType(s.fields.map(f => if (f.name.equalsIgnoreCase(field.name)) field else f))
    }
    val field = changed.get
    val m = current.copy(schemaString = schema.json)
    txn.updateMetadata(m)
    TableWriter.upgradeProtocol(txn, txn.metadata)
    txn.readFiles(Nil)
    txn.commit(Nil, Operation.ChangeColumn(SchemaPaths.fieldJson(name, field), position.flatMap(SchemaPaths.describe)))
    schema
  }
}
