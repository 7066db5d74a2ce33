package io.silt.tables

import scala.annotation.varargs
import scala.collection.mutable

import io.silt.errors.InvalidTableOperationException
import io.silt.spark.SqlText
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.types.{DataType, LongType, Metadata, MetadataBuilder, StructField, StructType}

/**
 * CREATE / REPLACE TABLE, as delta-spark's builder: a name or a location, columns, partitioning or
 * clustering, properties, then `execute()`.
 */
class DeltaTableBuilder private[tables] (spark: SparkSession, statement: String) {
  private var name: Option[String] = None
  private var where: Option[String] = None
  private var tableComment: Option[String] = None
  private val columns = mutable.ArrayBuffer.empty[StructField]
  private var partitioning: Seq[String] = Nil
  private var clustering: Seq[String] = Nil
  private val properties = mutable.LinkedHashMap.empty[String, String]

  /** The catalog name of the table. */
  def tableName(identifier: String): DeltaTableBuilder = { name = Some(identifier); this }

  /** The table's comment. */
  def comment(comment: String): DeltaTableBuilder = { tableComment = Some(comment); this }

  /** Where the table is stored (a path table when it has no name). */
  def location(location: String): DeltaTableBuilder = { where = Some(location); this }

  /** A nullable column of a SQL type (`"BIGINT"`). */
  def addColumn(colName: String, dataType: String): DeltaTableBuilder = addColumn(colName, DataType.fromDDL(dataType))
  def addColumn(colName: String, dataType: DataType): DeltaTableBuilder = addColumn(colName, dataType, nullable = true)
  def addColumn(colName: String, dataType: String, nullable: Boolean): DeltaTableBuilder =
    addColumn(colName, DataType.fromDDL(dataType), nullable)
  def addColumn(colName: String, dataType: DataType, nullable: Boolean): DeltaTableBuilder =
    addColumn(StructField(colName, dataType, nullable))

  /** A column, with what `DeltaTable.columnBuilder` put in its metadata (generation, identity, comment). */
  def addColumn(col: StructField): DeltaTableBuilder = { columns += col; this }

  /** The columns of a schema. */
  def addColumns(cols: StructType): DeltaTableBuilder = { columns ++= cols.fields; this }

  /** The partition columns. */
  @varargs
  def partitionedBy(colNames: String*): DeltaTableBuilder = { partitioning = colNames.toSeq; this }

  /** The clustering columns (liquid clustering). */
  @varargs
  def clusterBy(colNames: String*): DeltaTableBuilder = { clustering = colNames.toSeq; this }

  /** A table property (`delta.*` ones as Silt honours or refuses them). */
  def property(key: String, value: String): DeltaTableBuilder = { properties(key) = value; this }

  /** Runs the statement; returns the table. */
  def execute(): DeltaTable = {
    val target = (name, where) match {
      case (Some(n), _) => TableName.Name(n)
      case (None, Some(l)) => TableName.Path(l)
      case _ => throw new InvalidTableOperationException("the table needs a name (tableName) or a location")
    }
    if (columns.isEmpty) throw new InvalidTableOperationException("the table needs at least one column (addColumn)")
    val sql = new StringBuilder(s"$statement ${target.dmlSql} (${columns.map(DeltaTableBuilder.columnSql).mkString(", ")}) USING silt")
    if (partitioning.nonEmpty) sql ++= partitioning.map(SqlText.column).mkString(" PARTITIONED BY (", ", ", ")")
    if (clustering.nonEmpty) sql ++= clustering.map(SqlText.column).mkString(" CLUSTER BY (", ", ", ")")
    tableComment.foreach(c => sql ++= s" COMMENT ${SqlText.string(c)}")
    if (properties.nonEmpty) sql ++= properties.map { case (k, v) =>
      s"${SqlText.string(k)} = ${SqlText.string(v)}" }.mkString(" TBLPROPERTIES (", ", ", ")")
    if (name.isDefined) where.foreach(l => sql ++= s" LOCATION ${SqlText.string(l)}")
    spark.sql(sql.toString).collect()
    new DeltaTable(spark, target, None)
  }
}

private[tables] object DeltaTableBuilder {
  /** A column's definition in CREATE TABLE, from its type and the metadata Delta's builders give it. */
  def columnSql(f: StructField): String = {
    val m = f.metadata
    val sql = new StringBuilder(s"${SqlText.identifier(f.name)} ${f.dataType.sql}")
    if (!f.nullable) sql ++= " NOT NULL"
    if (m.contains(DeltaColumnBuilder.IdentityStart)) {
      val kind = if (m.contains(DeltaColumnBuilder.IdentityExplicitInsert) && m.getBoolean(DeltaColumnBuilder.IdentityExplicitInsert))
        "BY DEFAULT" else "ALWAYS"
      sql ++= s" GENERATED $kind AS IDENTITY (START WITH ${m.getLong(DeltaColumnBuilder.IdentityStart)} " +
        s"INCREMENT BY ${m.getLong(DeltaColumnBuilder.IdentityStep)})"
    } else if (m.contains(DeltaColumnBuilder.GenerationExpression)) {
      sql ++= s" GENERATED ALWAYS AS (${m.getString(DeltaColumnBuilder.GenerationExpression)})"
    }
    if (m.contains("comment")) sql ++= s" COMMENT ${SqlText.string(m.getString("comment"))}"
    sql.toString
  }
}

/** One column for `DeltaTableBuilder.addColumn`, as delta-spark's `DeltaColumnBuilder`. */
class DeltaColumnBuilder private[tables] (spark: SparkSession, colName: String) {
  private var dataType: Option[DataType] = None
  private var isNullable = true
  private val metadata = new MetadataBuilder

  /** The column's SQL type (`"BIGINT"`). */
  def dataType(dataType: String): DeltaColumnBuilder = this.dataType(DataType.fromDDL(dataType))
  def dataType(dataType: DataType): DeltaColumnBuilder = { this.dataType = Some(dataType); this }

  /** Whether the column may hold NULL. */
  def nullable(nullable: Boolean): DeltaColumnBuilder = { isNullable = nullable; this }

  /** A generated column: its value is always this SQL expression of other columns. */
  def generatedAlwaysAs(expr: String): DeltaColumnBuilder = {
    metadata.putString(DeltaColumnBuilder.GenerationExpression, expr); this
  }

  /** An identity column whose values writes cannot give: 1, 2, 3, … */
  def generatedAlwaysAsIdentity(): DeltaColumnBuilder = generatedAlwaysAsIdentity(1L, 1L)
  /** An identity column whose values writes cannot give: start, start + step, … */
  def generatedAlwaysAsIdentity(start: Long, step: Long): DeltaColumnBuilder = identity(start, step, explicitInsert = false)

  /** An identity column whose values writes may give: 1, 2, 3, … otherwise. */
  def generatedByDefaultAsIdentity(): DeltaColumnBuilder = generatedByDefaultAsIdentity(1L, 1L)
  /** An identity column whose values writes may give: start, start + step, … otherwise. */
  def generatedByDefaultAsIdentity(start: Long, step: Long): DeltaColumnBuilder = identity(start, step, explicitInsert = true)

  private def identity(start: Long, step: Long, explicitInsert: Boolean): DeltaColumnBuilder = {
    if (step == 0) throw new InvalidTableOperationException(s"identity column $colName: its step cannot be 0")
    metadata.putLong(DeltaColumnBuilder.IdentityStart, start).putLong(DeltaColumnBuilder.IdentityStep, step)
      .putBoolean(DeltaColumnBuilder.IdentityExplicitInsert, explicitInsert)
    this
  }

  /** The column's comment. */
  def comment(comment: String): DeltaColumnBuilder = { metadata.putString("comment", comment); this }

  /** The column, for `addColumn`. */
  def build(): StructField = {
    val dt = dataType.getOrElse(throw new InvalidTableOperationException(s"column $colName needs a data type (dataType)"))
    if (metadata.build().contains(DeltaColumnBuilder.IdentityStart) && dt != LongType) throw new InvalidTableOperationException(
      s"identity column $colName is ${dt.sql}; an identity column is BIGINT")
    StructField(colName, dt, isNullable, metadata.build())
  }
}

private[tables] object DeltaColumnBuilder {
  val GenerationExpression = "delta.generationExpression"
  val IdentityStart = "delta.identity.start"
  val IdentityStep = "delta.identity.step"
  val IdentityExplicitInsert = "delta.identity.allowExplicitInsert"
}
