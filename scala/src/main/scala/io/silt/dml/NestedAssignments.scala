package io.silt.dml

import io.silt.errors.{ErrorClass, InvalidTableOperationException}
import org.apache.spark.sql.catalyst.expressions.{Attribute, CreateNamedStruct, Expression, ExtractValue, GetStructField,
  Literal}
import org.apache.spark.sql.catalyst.plans.logical.Assignment
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * UPDATE and MERGE assignments to fields of structs (`SET s.x = …`, `s.z.b = …`) as assignments
 * of whole columns, as Delta Lake plans them: the column's struct rebuilt with the assigned fields
 * and the others as they were (a NULL struct becomes one whose other fields are NULL). A field inside
 * an array or map cannot be set, and two assignments to one field, or to a field and a struct holding
 * it, conflict: both refused, with Delta Lake's error classes.
 */
object NestedAssignments {
  /** `assignments` with every key a top-level column of `columns` (the others kept as they are). */
  def expand(assignments: Seq[Assignment], columns: Seq[Attribute]): Seq[Assignment] = {
    if (!assignments.exists(a => a.key.resolved && !a.key.isInstanceOf[Attribute])) return assignments
    val paths = assignments.map(a => a -> pathOf(a.key))
    conflict(paths.collect { case (a, Some(p)) => a -> p })
    val nested = paths.collect { case (a, Some((root, fields))) if fields.nonEmpty => (root, fields, a.value) }
    val roots = nested.map(_._1.exprId).toSet
    val whole = paths.collect { case (a, p) if !p.exists(_._2.nonEmpty) => a }
    whole ++ columns.filter(c => roots(c.exprId)).map { c =>
      Assignment(c, rebuild(c, c.dataType, nested.collect { case (r, fields, v) if r.exprId == c.exprId => fields -> v }))
    }
  }

  /** The struct `current` (of type `dt`) with the values assigned to its fields (by path below it). */
  private def rebuild(current: Expression, dt: DataType, assigned: Seq[(Seq[String], Expression)]): Expression =
    dt match {
      case st: StructType => CreateNamedStruct(st.fields.toSeq.zipWithIndex.flatMap { case (f, i) =>
        val field = GetStructField(current, i, Some(f.name))
        val here = assigned.collect { case (p, v) if p.head.equalsIgnoreCase(f.name) => p.tail -> v }
        Seq(Literal(f.name), here match {
          case Seq() => field
          case Seq((Seq(), v)) => v
          case deeper => rebuild(field, f.dataType, deeper)
        })
      })
      case other => throw new IllegalStateException(s"assignment below a field of type ${other.simpleString}")
    }

  /** The column and the struct fields (names, outermost first) a key assigns; None when it is not resolved. */
  private def pathOf(key: Expression): Option[(Attribute, Seq[String])] = key match {
    case a: Attribute => Some(a -> Nil)
    case g @ GetStructField(child, _, _) => pathOf(child).map { case (a, p) => a -> (p :+ g.extractFieldName) }
    case e: ExtractValue if e.resolved => throw new InvalidTableOperationException(s"cannot set ${e.sql}: updating " +
      "nested fields is only supported for fields of structs, not of an array or a map; set the whole column",
      errorClass = ErrorClass.UnsupportedNestedFieldInUpdate)
    case _ => None
  }

  /** Refuses two assignments to one field, or to a field and a struct holding it (one would undo the other). */
  private def conflict(paths: Seq[(Assignment, (Attribute, Seq[String]))]): Unit = {
    val named = paths.map { case (a, (root, fields)) => (a, root.exprId, (root.name +: fields).map(_.toLowerCase)) }
    for ((a, id, p) <- named; (b, id2, q) <- named if (a ne b) && id == id2 && q.startsWith(p)) {
      throw new InvalidTableOperationException(s"there is a conflict from these SET columns: ${a.key.sql}, " +
        s"${b.key.sql}: set a struct or its fields, each once", errorClass = ErrorClass.ConflictSetColumn)
    }
  }
}
