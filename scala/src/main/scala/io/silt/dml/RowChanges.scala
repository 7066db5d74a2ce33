package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.types.StringType

/** What happens to a row of a DELETE, UPDATE or MERGE (its `code` is the action column's value). */
sealed abstract class RowChange(val code: Int)

object RowChange {
  /** A target row that stays as it is. */
  case object Keep extends RowChange(0)
  /** A target row replaced by the row's new values. */
  case object Update extends RowChange(1)
  /** A target row that goes away. */
  case object Delete extends RowChange(2)
  /** A new row (no target row). */
  case object Insert extends RowChange(3)

  def fromCode(code: Int): RowChange = Seq(Keep, Update, Delete, Insert).find(_.code == code).getOrElse(
    throw new IllegalArgumentException(s"unknown row change $code"))
}

/**
 * The common shape of DELETE, UPDATE and MERGE: a plan whose rows are the table's columns (new
 * values where a row is updated or inserted), the data file and row index a target row came
 * from, and what happens to the row.
 */
object RowChanges {
  val PathColumn = "__silt_file_path"
  val RowIndexColumn = "__silt_row_index"
  val ActionColumn = "__silt_action"


  /**
   * The target relation with the file path and row index of each row, keeping the relation's
   * attribute ids so that conditions analyzed against it still resolve.
   */
  def targetWithRowIds(target: LogicalRelation): (LogicalPlan, Attribute, Attribute) = {
    val withMeta = target.withMetadataColumns()
    val meta = withMeta.output.find(_.name == "_metadata").getOrElse(
      throw new InvalidTableOperationException("the table's scan has no _metadata column"))
    def field(name: String) = {
      val struct = meta.dataType.asInstanceOf[org.apache.spark.sql.types.StructType]
      GetStructField(meta, struct.fieldIndex(name), Some(name))
    }
    val path = Alias(field("file_path"), PathColumn)()
    val row = Alias(field("row_index"), RowIndexColumn)()
    (Project(target.output ++ Seq(path, row), withMeta), path.toAttribute, row.toAttribute)
  }

  /** The action column of a row-change plan: CASE over (condition, action) pairs, else `default`. */
  def actionOf(cases: Seq[(Expression, RowChange)], default: RowChange): Alias =
    Alias(if (cases.isEmpty) Literal(default.code)
      else CaseWhen(cases.map { case (c, a) => (c, Literal(a.code)) }, Literal(default.code)), ActionColumn)()

  /** The final projection: the table columns (values chosen per case), path, row index, action, `extra`. */
  def project(columns: Seq[Expression], tableOutput: Seq[Attribute], path: Expression, row: Expression,
      action: Alias, child: LogicalPlan, extra: Seq[NamedExpression] = Nil): Project = {
    val named = columns.zip(tableOutput).map { case (e, a) => Alias(e, a.name)() }
    Project(named ++ Seq(Alias(Cast(path, StringType), PathColumn)(), Alias(row, RowIndexColumn)(), action) ++ extra, child)
  }

  /** `value` cast to the column's type when it differs. */
  def castTo(value: Expression, target: Attribute, timeZone: String): Expression =
    if (value.dataType == target.dataType) value else Cast(value, target.dataType, Some(timeZone))

}
