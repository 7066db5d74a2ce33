package io.silt.dml

import io.silt.errors.InvalidTableOperationException
import io.silt.expressions.IdentityPlaceholder
import io.silt.features.IdentityColumns
import io.silt.write.GeneratedColumns
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedExtractValue}
import org.apache.spark.sql.catalyst.expressions.{Attribute, Cast, Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.Assignment
import org.apache.spark.sql.catalyst.util.ResolveDefaultColumns
import org.apache.spark.sql.types.StructType

/**
 * The assignments of an UPDATE or a MERGE clause with the table's generated columns recomputed,
 * as Delta does: a generated column the clause leaves out is assigned its expression over the new
 * values when the clause changes one of its inputs (an update), or always (an insert). A column
 * the clause assigns itself is left alone, and the write's check refuses a wrong value. An identity
 * column an insert leaves out gets its next value; one an ALWAYS column is given, or an update
 * changes, is refused.
 */
object GeneratedAssignments {
  /** `assignments` to `target`'s columns, completed; the same Seq when nothing is added. */
  def complete(assignments: Seq[Assignment], target: Seq[Attribute], schema: StructType, parse: String => Expression,
      insert: Boolean): Seq[Assignment] = {
    def assigned(name: String): Option[Expression] = assignments.collectFirst {
      case Assignment(k: Attribute, v) if k.name.equalsIgnoreCase(name) => v
    }
    val added = schema.fields.toSeq.flatMap { f =>
      GeneratedColumns.of(f).filter(_ => assigned(f.name).isEmpty).flatMap { sql =>
        val computed = parse(sql)
        val inputs = computed.collect { case a: UnresolvedAttribute => a.nameParts.head }
        if (!insert && !inputs.exists(n => assigned(n).isDefined)) None
        else target.find(_.name.equalsIgnoreCase(f.name)).map { key =>
          // an input's new value: what the clause assigns it, else (an update) the row's own, (an insert) its default
          // (a field of a struct column, `s.x`: the field of the column's new value)
          val value = computed.transform {
            case a: UnresolvedAttribute if target.exists(_.name.equalsIgnoreCase(a.nameParts.head)) =>
              val column = target.find(_.name.equalsIgnoreCase(a.nameParts.head))
              val base = assigned(a.nameParts.head).getOrElse {
                if (insert) ResolveDefaultColumns.getDefaultValueExprOrNullLit(column.get.withNullability(true)) else column.get
              }
              a.nameParts.tail.foldLeft(base)((e, field) => UnresolvedExtractValue(e, Literal(field)))
          }
          Assignment(key, Cast(value, key.dataType))
        }
      }
    }
    val identities = IdentityColumns.of(schema).flatMap { case (f, spec) =>
      // An explicit NULL is a value as any other (Delta inserts it into a BY DEFAULT column).
      (assigned(f.name), target.find(_.name.equalsIgnoreCase(f.name))) match {
        case (Some(v), _) if placeholder(v) => None // completed before
        case (Some(_), _) if insert && !spec.allowExplicitInsert => throw new InvalidTableOperationException(
          s"identity column ${f.name} is GENERATED ALWAYS: an INSERT cannot give its values; leave it out of the clause " +
            "(list the other columns instead of INSERT *) and Silt generates them")
        case (Some(v), Some(key)) if !insert && !sameColumn(v, key) => throw new InvalidTableOperationException(
          s"identity column ${f.name} cannot be updated: its values identify the rows (delete the row and insert it " +
            "again for a new value); leave it out of the SET clause (list the other columns instead of UPDATE SET *)")
        case (None, Some(key)) if insert => Some(Assignment(key, IdentityPlaceholder(f.name)))
        case _ => None
      }
    }
    if (added.isEmpty && identities.isEmpty) assignments
    else assignments.filterNot(a => identities.exists(i => sameColumn(a.key, i.key.asInstanceOf[Attribute]))) ++ added ++
      identities
  }

  private def placeholder(v: Expression): Boolean = v match {
    case _: IdentityPlaceholder => true
    case c: Cast => placeholder(c.child)
    case _ => false
  }

  /** Whether `v` is the column `key` itself (`SET id = id`), perhaps cast to its own type. */
  private def sameColumn(v: Expression, key: Attribute): Boolean = v match {
    case a: Attribute => a.exprId == key.exprId
    case c: Cast => sameColumn(c.child, key)
    case _ => false
  }
}
