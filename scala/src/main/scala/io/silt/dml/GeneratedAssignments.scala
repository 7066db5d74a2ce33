package io.silt.dml

import io.silt.write.GeneratedColumns
import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Attribute, Cast, Expression}
import org.apache.spark.sql.catalyst.plans.logical.Assignment
import org.apache.spark.sql.catalyst.util.ResolveDefaultColumns
import org.apache.spark.sql.types.StructType

/**
 * The assignments of an UPDATE or a MERGE clause with the table's generated columns recomputed,
 * as Delta does: a generated column the clause leaves out is assigned its expression over the new
 * values when the clause changes one of its inputs (an update), or always (an insert). A column
 * the clause assigns itself is left alone, and the write's check refuses a wrong value.
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
          val value = computed.transform {
            case a: UnresolvedAttribute if a.nameParts.size == 1 => assigned(a.nameParts.head).getOrElse {
              val column = target.find(_.name.equalsIgnoreCase(a.nameParts.head))
              if (insert) column.map(ResolveDefaultColumns.getDefaultValueExprOrNullLit).getOrElse(a) else column.getOrElse(a)
            }
          }
          Assignment(key, Cast(value, key.dataType))
        }
      }
    }
    if (added.isEmpty) assignments else assignments ++ added
  }
}
