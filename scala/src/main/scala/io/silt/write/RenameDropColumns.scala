package io.silt.write

import scala.util.Try

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.Metadata
import io.silt.features.{ColumnMapping, TableProperties}
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.types.{MetadataBuilder, StructField, StructType}

/**
 * ALTER TABLE … RENAME COLUMN and DROP COLUMN(S), which column mapping makes metadata-only
 * changes: data files keep the physical names, so a renamed column reads its old data and a
 * dropped one is gone (a new column of the same name gets a new physical name). As in Delta
 * Lake: a column a CHECK constraint uses can be neither renamed nor dropped, a partition column
 * cannot be dropped, and `delta.dataSkippingStatsColumns` follows the change. REPLACE COLUMNS
 * is a drop of the columns left out, an add of the new ones and a reordering, in one commit.
 */
object RenameDropColumns {

  def rename(spark: SparkSession, tablePath: Path, change: TableChange.RenameColumn): StructType = {
    val path = change.fieldNames.toSeq
    val name = path.mkString(".")
    def refuse(why: String): Nothing =
      throw new InvalidTableOperationException(s"ALTER TABLE $tablePath RENAME COLUMN $name TO ${change.newName}: $why")
    val txn = start(spark, tablePath, s"RENAME COLUMN $name", refuse)
    val current = txn.metadata
    usedByConstraint(spark, current, path).foreach(c => refuse(s"the CHECK constraint $c uses it; drop the constraint first"))
    val schema = SchemaPaths.updateStruct(current.schema, path.init, refuse) { s =>
      val i = SchemaPaths.indexOf(s, path.last, refuse)
      if (s.fields.exists(f => f.name.equalsIgnoreCase(change.newName) && !f.name.equalsIgnoreCase(path.last))) {
        refuse(s"a column ${change.newName} already exists there")
      }
      StructType(s.fields.updated(i, s.fields(i).copy(name = change.newName)))
    }
    val newPath = path.init :+ change.newName
    val partitionColumns = if (path.size == 1) current.partitionColumns.map(c =>
      if (c.equalsIgnoreCase(path.head)) change.newName else c) else current.partitionColumns
    val m = current.copy(schemaString = schema.json, partitionColumns = partitionColumns,
      configuration = statsColumns(current, _.map(c => if (samePath(c, path)) newPath.mkString(".")
        else if (c.toLowerCase.startsWith(name.toLowerCase + ".")) newPath.mkString(".") + c.substring(name.length) else c)))
    commit(txn, m, Operation.RenameColumn(name, newPath.mkString(".")))
    schema
  }

  def drop(spark: SparkSession, tablePath: Path, changes: Seq[TableChange.DeleteColumn]): StructType = {
    val names = changes.map(_.fieldNames.mkString("."))
    def refuse(why: String): Nothing =
      throw new InvalidTableOperationException(s"ALTER TABLE $tablePath DROP COLUMNS ${names.mkString(", ")}: $why")
    val txn = start(spark, tablePath, "DROP COLUMN", refuse)
    val current = txn.metadata
    val present = changes.filter(c => exists(current.schema, c.fieldNames.toSeq))
    changes.filterNot(present.contains).find(!_.ifExists).foreach(c => refuse(s"there is no column ${c.fieldNames.mkString(".")}"))
    val paths = present.map(_.fieldNames.toSeq)
    checkDroppable(spark, current, paths, refuse)
    val schema = paths.foldLeft(current.schema) { (schema, p) =>
      SchemaPaths.updateStruct(schema, p.init, refuse) { s =>
        val rest = s.fields.filterNot(_.name.equalsIgnoreCase(p.last))
        if (rest.isEmpty) refuse(s"${p.mkString(".")} is the last field of ${if (p.size == 1) "the table" else p.init.mkString(".")}")
        StructType(rest)
      }
    }
    if (schema.length == current.partitionColumns.size) refuse("a table needs at least one column that is not a partition column")
    val m = current.copy(schemaString = schema.json,
      configuration = statsColumns(current, _.filterNot(c => paths.exists(p => samePath(c, p) ||
        c.toLowerCase.startsWith(p.mkString(".").toLowerCase + ".")))))
    if (paths.nonEmpty) commit(txn, m, Operation.DropColumns(paths.map(_.mkString("."))))
    schema
  }

  /**
   * ALTER TABLE … REPLACE COLUMNS: the columns become exactly those given, in that order. As in
   * Delta Lake, a column kept must keep its type (its comment is the new one); new columns are
   * added nullable; a column left out is dropped, which needs column mapping and must not be a
   * partition column.
   */
  def replace(spark: SparkSession, tablePath: Path, columns: Seq[TableChange.AddColumn]): StructType = {
    def refuse(why: String): Nothing = throw new InvalidTableOperationException(s"ALTER TABLE $tablePath REPLACE COLUMNS: $why")
    val txn = ExistingTable.begin(spark, tablePath)
    val current = txn.metadata
    val fields = columns.map { c =>
      val name = c.fieldNames.mkString(".")
      if (c.defaultValue != null) refuse(s"column $name: column defaults are not supported")
      current.schema.fields.find(_.name.equalsIgnoreCase(name)) match {
        case Some(old) =>
          if (ColumnMapping.logicalSchema(StructType(Seq(old))).head.dataType != c.dataType) {
            refuse(s"column $name would change type from ${old.dataType.simpleString} to ${c.dataType.simpleString}; " +
              "a column's type cannot change")
          }
          if (old.nullable && !c.isNullable) refuse(s"a nullable column ($name) cannot become NOT NULL")
          val kept = old.copy(name = name, nullable = c.isNullable)
          Option(c.comment).fold(kept.copy(metadata = new MetadataBuilder().withMetadata(old.metadata).remove("comment").build()))(
            kept.withComment)
        case None =>
          if (!c.isNullable) refuse(s"a new column ($name) must be nullable")
          Option(c.comment).foldLeft(StructField(name, c.dataType, nullable = true))(_.withComment(_))
      }
    }
    val dropped = current.schema.fields.filterNot(f => fields.exists(_.name.equalsIgnoreCase(f.name))).map(f => Seq(f.name)).toSeq
    if (dropped.nonEmpty) {
      requireMapping(txn, s"dropping ${dropped.map(_.head).mkString(", ")}", refuse)
      checkDroppable(spark, current, dropped, refuse)
    }
    val schema = StructType(fields)
    val m = current.copy(schemaString = schema.json,
      configuration = statsColumns(current, _.filterNot(c => dropped.exists(p => samePath(c, p) ||
        c.toLowerCase.startsWith(p.head.toLowerCase + ".")))))
    commit(txn, m, Operation.ReplaceColumns(fields.map(f => SchemaPaths.fieldJson(f.name, ColumnMapping.logicalSchema(
      StructType(Seq(f))).head))))
    schema
  }

  private def start(spark: SparkSession, tablePath: Path, what: String, refuse: String => Nothing): OptimisticTransaction = {
    val txn = ExistingTable.begin(spark, tablePath)
    requireMapping(txn, what, refuse)
    txn
  }

  private def requireMapping(txn: OptimisticTransaction, what: String, refuse: String => Nothing): Unit =
    if (!ColumnMapping.of(txn.metadata).enabled) refuse(s"$what needs column mapping, so that data files keep " +
      "their column names; enable it first with ALTER TABLE … SET TBLPROPERTIES " +
      s"('${TableProperties.ColumnMappingModeProperty.key}' = 'name') (readers then need Delta reader version 2 or later)")

  /** Refuses to drop a partition column or a column a CHECK constraint uses. */
  private def checkDroppable(spark: SparkSession, m: Metadata, paths: Seq[Seq[String]], refuse: String => Nothing): Unit = {
    paths.find(p => p.size == 1 && m.partitionColumns.exists(_.equalsIgnoreCase(p.head))).foreach { p =>
      refuse(s"${p.head} is a partition column, which cannot be dropped")
    }
    paths.flatMap(p => usedByConstraint(spark, m, p).map(p -> _)).headOption.foreach { case (p, c) =>
      refuse(s"the CHECK constraint $c uses ${p.mkString(".")}; drop the constraint first")
    }
  }

  private def commit(txn: OptimisticTransaction, m: Metadata, op: Operation): Unit = {
    txn.updateMetadata(m)
    TableWriter.upgradeProtocol(txn, txn.metadata)
    txn.readFiles(Nil)
    txn.commit(Nil, op)
  }

  private def exists(schema: StructType, path: Seq[String]): Boolean =
    Try(SchemaPaths.updateStruct(schema, path.init, why => throw new NoSuchElementException(why)) { s =>
      SchemaPaths.indexOf(s, path.last, why => throw new NoSuchElementException(why)); s
    }).isSuccess

  private def samePath(column: String, path: Seq[String]): Boolean = column.equalsIgnoreCase(path.mkString("."))

  /** The CHECK constraints whose expression names the column at `path` (or a field inside it). */
  private def usedByConstraint(spark: SparkSession, m: Metadata, path: Seq[String]): Option[String] =
    TableProperties(m.configuration).checkConstraints.toSeq.sortBy(_._1).collectFirst {
      case (name, text) if Try(spark.sessionState.sqlParser.parseExpression(text)).toOption.exists(_.exists {
        case u: UnresolvedAttribute => u.nameParts.map(_.toLowerCase).startsWith(path.map(_.toLowerCase)) ||
          path.map(_.toLowerCase).startsWith(u.nameParts.map(_.toLowerCase))
        case _ => false
      }) => s"$name ($text)"
    }

  /** The configuration with `delta.dataSkippingStatsColumns` changed by `f`, when it is set. */
  private def statsColumns(m: Metadata, f: Seq[String] => Seq[String]): Map[String, String] =
    m.configuration.find(_._1.equalsIgnoreCase(TableProperties.DataSkippingStatsColumns.key)) match {
      case Some((k, _)) => m.configuration + (k -> f(TableProperties(m.configuration).dataSkippingStatsColumns.get).mkString(","))
      case None => m.configuration
    }
}
