package io.silt.shims

import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable, UnaryNode}

/**
 * MERGE schema evolution on Spark 3.5 and 4.0, whose MERGE has none of its own (no `WITH SCHEMA
 * EVOLUTION`, no flag). The target is held in [[EvolvingMergeTarget]], unresolved, so that Spark does
 * not expand `*` over the target's columns: Silt expands it over the source's, as Spark 4.1 does with
 * schema evolution, then marks it expanded and lets Spark resolve the rest.
 */
object MergeEvolution {
  /** Whether Spark's parser reads `MERGE WITH SCHEMA EVOLUTION` itself. */
  val parsedBySpark: Boolean = false

  def requested(m: MergeIntoTable): Boolean = m.targetTable.isInstanceOf[EvolvingMergeTarget]

  def withEvolution(m: MergeIntoTable): MergeIntoTable =
    if (requested(m)) m else m.copy(targetTable = EvolvingMergeTarget(m.targetTable, expanded = false))

  /** The plan of the table `m` writes to, without the mark of evolution. */
  def target(m: MergeIntoTable): LogicalPlan = m.targetTable match {
    case EvolvingMergeTarget(t, _) => t
    case t => t
  }

  /** Whether `m`'s `*` waits to be expanded over its source's columns: both sides resolved, not expanded yet. */
  def awaitsExpansion(m: MergeIntoTable): Boolean = m.targetTable match {
    case EvolvingMergeTarget(t, false) => t.resolved && m.sourceTable.resolved
    case _ => false
  }

  /** `m`, its `*` expanded: Spark resolves the rest. */
  def expanded(m: MergeIntoTable): MergeIntoTable = m.targetTable match {
    case EvolvingMergeTarget(t, _) => m.copy(targetTable = EvolvingMergeTarget(t, expanded = true))
    case _ => m
  }
}

/** A MERGE's target whose schema evolves: unresolved (for Spark) until Silt has expanded the MERGE's `*`. */
final case class EvolvingMergeTarget(child: LogicalPlan, expanded: Boolean) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override lazy val resolved: Boolean = expanded && child.resolved
  override protected def withNewChildInternal(newChild: LogicalPlan): LogicalPlan = copy(child = newChild)
}
