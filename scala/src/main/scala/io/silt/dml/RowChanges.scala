package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.read.RowTrackingColumns
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{Assignment, LogicalPlan, Project}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, StructType}

/** What happens to a row of a DELETE, UPDATE or MERGE (its `code` is the action column's value). */
sealed abstract class RowChange(val code: Int) extends Serializable

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

/** A scan of the target with each row's file path and row index, and on a table with row tracking its id and commit version. */
final case class TargetRows(plan: LogicalPlan, path: Attribute, row: Attribute, tracked: Seq[Attribute])

/**
 * The common shape of DELETE, UPDATE and MERGE: a plan whose rows are the table's columns (new
 * values where a row is updated or inserted), the data file and row index a target row came
 * from, and what happens to the row.
 */
object RowChanges {
  val PathColumn = "__silt_file_path"
  val RowIndexColumn = "__silt_row_index"
  val ActionColumn = "__silt_action"


  /** Each target row's stable row id and row commit version, on a table with row tracking. */
  val TrackedColumns: Seq[(String, String)] = Seq(
    RowTrackingColumns.RowId -> "__silt_row_id", RowTrackingColumns.RowCommitVersion -> "__silt_row_commit_version")

  /**
   * The target relation with the file path and row index of each row (and on a table with row
   * tracking, its id and commit version: `tracked`), keeping the relation's attribute ids so that
   * conditions analyzed against it still resolve.
   */
  def targetWithRowIds(target: LogicalRelation): TargetRows = {
    val withMeta = target.withMetadataColumns()
    val meta = withMeta.output.find(_.name == "_metadata").getOrElse(
      throw new InvalidTableOperationException("the table's scan has no _metadata column"))
    val struct = meta.dataType.asInstanceOf[StructType]
    def field(name: String) = GetStructField(meta, struct.fieldIndex(name), Some(name))
    val path = Alias(field("file_path"), PathColumn)()
    val row = Alias(field("row_index"), RowIndexColumn)()
    val tracked = TrackedColumns.filter(c => struct.fieldNames.contains(c._1)).map { case (f, name) => Alias(field(f), name)() }
    TargetRows(Project(target.output ++ Seq(path, row) ++ tracked, withMeta), path.toAttribute, row.toAttribute,
      tracked.map(_.toAttribute))
  }

  /** The action column of a row-change plan: CASE over (condition, action) pairs, else `default`. */
  def actionOf(cases: Seq[(Expression, RowChange)], default: RowChange): Alias =
    Alias(if (cases.isEmpty) Literal(default.code)
      else CaseWhen(cases.map { case (c, a) => (c, Literal(a.code)) }, Literal(default.code)), ActionColumn)()

  /**
   * The final projection: the table columns (values chosen per case), path, row index, action,
   * the target row's tracked id and commit version (when `child` has them), `extra`.
   */
  def project(columns: Seq[Expression], tableOutput: Seq[Attribute], path: Expression, row: Expression,
      action: Alias, child: LogicalPlan, extra: Seq[NamedExpression] = Nil): Project = {
    val named = columns.zip(tableOutput).map { case (e, a) => Alias(e, a.name)() }
    val tracked = TrackedColumns.flatMap(c => child.output.find(_.name == c._2))
    Project(named ++ Seq(Alias(Cast(path, StringType), PathColumn)(), Alias(row, RowIndexColumn)(), action) ++ tracked ++ extra,
      child)
  }

  /**
   * `value` cast to the column's type when it differs. A cast matches struct fields by position,
   * so a struct with the column's fields in another order is rebuilt by name (as Delta Lake
   * resolves them); one that needs that inside an array or map is refused, never cast by position.
   */
  def castTo(value: Expression, target: Attribute, timeZone: String): Expression = {
    def convert(v: Expression, to: DataType): Expression = (v.dataType, to) match {
      case (from, _) if from == to => v
      case (from: StructType, t: StructType) if sameNames(from, t) =>
        // rebuilt field by field, by name, so that structs inside are matched by name too
        val fields = t.fields.toSeq.flatMap { f =>
          val i = from.fieldNames.indexWhere(_.equalsIgnoreCase(f.name))
          Seq(Literal(f.name), convert(GetStructField(v, i, Some(from(i).name)), f.dataType))
        }
        If(IsNull(v), Literal(null, t), CreateNamedStruct(fields))
      case (from, _) if permuted(from, to) => throw new InvalidTableOperationException(s"column ${target.name}: a " +
        s"value of type ${from.simpleString} has the fields of a struct inside an array or map in another order than " +
        s"${to.simpleString}, which Silt does not match by name; select them in the column's order")
      case _ => Cast(v, to, Some(timeZone))
    }
    value match {
      // Spark's analyzer puts a cast to the column's type around an assigned struct: it would match
      // the fields by position, so the struct is matched by name instead.
      case c: Cast if c.child.resolved && c.dataType == target.dataType && permuted(c.child.dataType, c.dataType) =>
        convert(c.child, c.dataType)
      case _ => convert(value, target.dataType)
    }
  }

  /**
   * Assignments with their values cast to the columns' types by [[castTo]], when the plan is
   * resolved: later, the optimizer folds Spark's own (positional) casts of constant structs away.
   */
  def byName(assignments: Seq[Assignment], timeZone: String): Seq[Assignment] = assignments.map {
    case a @ Assignment(key: Attribute, value) if key.resolved && (value.resolved || value.isInstanceOf[Cast]) =>
      a.copy(value = castTo(value, key, timeZone))
    case other => other
  }

  /** Whether two structs have the same field names (case-insensitively), in any order. */
  private def sameNames(a: StructType, b: StructType): Boolean =
    a.length == b.length && a.fieldNames.map(_.toLowerCase).toSet == b.fieldNames.map(_.toLowerCase).toSet

  /** Whether some struct in `from` has the fields of the one at its place in `to` in another order. */
  private def permuted(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f: StructType, t: StructType) =>
      (sameNames(f, t) && !f.fieldNames.zip(t.fieldNames).forall { case (x, y) => x.equalsIgnoreCase(y) }) ||
        f.fields.zip(t.fields).exists { case (a, b) => permuted(a.dataType, b.dataType) }
    case (f: ArrayType, t: ArrayType) => permuted(f.elementType, t.elementType)
    case (f: MapType, t: MapType) => permuted(f.keyType, t.keyType) || permuted(f.valueType, t.valueType)
    case _ => false
  }

}
