package io.silt.expressions

import io.silt.errors.ConstraintViolationException
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.expressions.codegen.CodegenFallback
import org.apache.spark.sql.types.{BooleanType, DataType}

/**
 * One rule a written row must satisfy: `message` says what was violated, `valueNames` name the
 * columns whose values the error shows.
 */
final case class ConstraintRule(name: String, message: String, valueNames: Seq[String])

/**
 * True for a row that satisfies every rule; otherwise throws [[ConstraintViolationException]]
 * naming the first rule it breaks and the row's values. `children` hold, per rule in order, its
 * condition and then its shown values. A condition that is null violates the rule, as in Delta.
 * Not deterministic, so that the optimizer neither moves nor drops the filter it stands in.
 */
final case class EnforceConstraints(rules: Seq[ConstraintRule], children: Seq[Expression])
    extends Expression with CodegenFallback {
  require(children.size == rules.map(1 + _.valueNames.size).sum, "one condition and its values per rule")

  override lazy val deterministic: Boolean = false
  override def nullable: Boolean = false
  override def dataType: DataType = BooleanType

  override def eval(input: InternalRow): Any = {
    var pos = 0
    rules.foreach { rule =>
      if (children(pos).eval(input) != true) {
        val values = rule.valueNames.indices.map { j =>
          val e = children(pos + 1 + j)
          s"${rule.valueNames(j)}: ${CatalystTypeConverters.convertToScala(e.eval(input), e.dataType)}"
        }
        throw new ConstraintViolationException(rule.name,
          rule.message + (if (values.isEmpty) "" else values.mkString(" (values: ", ", ", ")")) +
            "; nothing was committed")
      }
      pos += 1 + rule.valueNames.size
    }
    true
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): Expression =
    copy(children = newChildren)

  override def prettyName: String = "enforce_constraints"
}
