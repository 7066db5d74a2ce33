package io.silt.write

import io.silt.errors.{ConstraintViolationException, InvalidTableOperationException}
import io.silt.features.{ColumnMapping, TableProperties}
import io.silt.read.SiltRelation
import io.silt.txn.Operation
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.{coalesce, col, expr, lit, not}
import org.apache.spark.sql.types.{BooleanType, StructField, StructType}

/**
 * ALTER TABLE … ADD / DROP CONSTRAINT: CHECK constraints kept as `delta.constraints.<name>`
 * properties; and SET NOT NULL, a constraint kept in the schema.
 */
object TableConstraints {

  /** Adds a CHECK constraint after checking every current row against it; a concurrent write conflicts. */
  def add(spark: SparkSession, tablePath: Path, rawName: String, condition: String): Long = {
    val txn = ExistingTable.begin(spark, tablePath)
    val name = rawName.toLowerCase
    val current = txn.metadata
    Constraints.checks(current).get(name).foreach { old =>
      throw new InvalidTableOperationException(s"constraint '$name' already exists on $tablePath (CHECK ($old)); " +
        s"drop it first with ALTER TABLE … DROP CONSTRAINT $name")
    }
    val snapshot = txn.readSnapshot.get
    txn.filesToValidate()
    val rows = spark.baseRelationToDataFrame(SiltRelation.forSnapshot(spark, snapshot))
    val check = expr(condition)
    val typed = rows.select(check).schema.head.dataType
    if (typed != BooleanType) throw new InvalidTableOperationException(s"CHECK constraint $name ($condition) " +
      s"is of type ${typed.simpleString}, not boolean")
    val violating = rows.filter(not(coalesce(check, lit(false))))
    val count = violating.count()
    if (count > 0) {
      val example = violating.limit(1).collect().head
      val values = example.schema.fieldNames.zip(example.toSeq).map { case (c, v) => s"$c: $v" }.mkString(", ")
      throw new ConstraintViolationException(name, s"$count row(s) of $tablePath violate the new CHECK constraint " +
        s"$name ($condition), for example ($values); nothing was committed")
    }
    val m = current.copy(configuration = current.configuration + (TableProperties.ConstraintPrefix + name -> condition))
    txn.updateMetadata(m)
    TableWriter.upgradeProtocol(txn, m)
    txn.commit(Nil, Operation.AddConstraint(name, condition))
  }

  /** Drops a CHECK constraint; one that does not exist is an error unless `ifExists`. */
  def drop(spark: SparkSession, tablePath: Path, rawName: String, ifExists: Boolean): Long = {
    val txn = ExistingTable.begin(spark, tablePath)
    val name = rawName.toLowerCase
    val current = txn.metadata
    val old = Constraints.checks(current).get(name)
    if (old.isEmpty && !ifExists) throw new InvalidTableOperationException(s"cannot drop constraint '$name' of " +
      s"$tablePath: it does not exist (use DROP CONSTRAINT IF EXISTS to allow that)")
    if (old.isDefined) {
      txn.updateMetadata(current.copy(configuration = current.configuration.filterNot { case (k, _) =>
        k.equalsIgnoreCase(TableProperties.ConstraintPrefix + name)
      }))
    }
    txn.commit(Nil, Operation.DropConstraint(name, old))
  }

  /**
   * ALTER COLUMN … SET NOT NULL: a column or struct field becomes NOT NULL after every current row
   * is checked (a null parent struct counts as null, as writes check it); like a new CHECK
   * constraint, it conflicts with any concurrent append.
   */
  def setNotNull(spark: SparkSession, tablePath: Path, column: Seq[String]): Long = {
    val name = column.mkString(".")
    def refuse(why: String): Nothing =
      throw new InvalidTableOperationException(s"ALTER TABLE $tablePath ALTER COLUMN $name SET NOT NULL: $why")
    val txn = ExistingTable.begin(spark, tablePath)
    val current = txn.metadata
    var changed: Option[StructField] = None
    val schema = SchemaPaths.updateStruct(current.schema, column.init, refuse) { s =>
      val i = SchemaPaths.indexOf(s, column.last, refuse)
      changed = Some(s.fields(i).copy(nullable = false))
      StructType(s.fields.updated(i, changed.get))
    }
    if (column.exists(p => Set("element", "key", "value")(p.toLowerCase)) && !hasStructPath(current.schema, column)) {
      refuse("only columns and struct fields can be NOT NULL, not fields inside arrays or maps")
    }
    txn.filesToValidate()
    val rows = spark.baseRelationToDataFrame(SiltRelation.forSnapshot(spark, txn.readSnapshot.get))
    val nulls = rows.filter(col(column.map(p => "`" + p.replace("`", "``") + "`").mkString(".")).isNull).count()
    if (nulls > 0) throw new ConstraintViolationException(name, s"$nulls row(s) of $tablePath have NULL in $name, " +
      "so it cannot become NOT NULL; nothing was committed", notNull = true)
    txn.updateMetadata(current.copy(schemaString = schema.json))
    TableWriter.upgradeProtocol(txn, txn.metadata)
    txn.commit(Nil, Operation.ChangeColumn(SchemaPaths.fieldJson(name,
      ColumnMapping.logicalSchema(StructType(Seq(changed.get))).head), None))
  }

  private def hasStructPath(schema: StructType, path: Seq[String]): Boolean = path.isEmpty ||
    schema.fields.find(_.name.equalsIgnoreCase(path.head)).exists(f => path.tail.isEmpty || (f.dataType match {
      case s: StructType => hasStructPath(s, path.tail)
      case _ => false
    }))
}
