package io.silt.shims

import io.silt.errors.UnsupportedOptionException
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

  /** `m` evolving the schema; `asked`: by its statement or API call (not by a session setting). */
  def withEvolution(m: MergeIntoTable, asked: Boolean): MergeIntoTable =
    if (requested(m)) m else m.copy(targetTable = EvolvingMergeTarget(m.targetTable, expanded = false, asked))

  /** The plan of the table `m` writes to, without the mark of evolution. */
  def target(m: MergeIntoTable): LogicalPlan = m.targetTable match {
    case EvolvingMergeTarget(t, _, _) => t
    case t => t
  }

  /**
   * `m` as Spark's own MERGE, for a target that is not a Silt table: Silt evolves only its own tables'
   * schemas, so a statement that asked for it is refused rather than run without it.
   */
  def withoutEvolution(m: MergeIntoTable): MergeIntoTable = m.targetTable match {
    case EvolvingMergeTarget(t, _, true) => throw new UnsupportedOptionException("WITH SCHEMA EVOLUTION",
      s"MERGE WITH SCHEMA EVOLUTION into ${t.simpleString(1)}: on this Spark (its MERGE has no schema evolution) " +
        "Silt evolves the schemas of Silt tables only; add the new columns with ALTER TABLE … ADD COLUMNS first")
    case EvolvingMergeTarget(t, _, false) => m.copy(targetTable = t)
    case _ => m
  }

  /** Whether `m`'s `*` waits to be expanded over its source's columns: both sides resolved, not expanded yet. */
  def awaitsExpansion(m: MergeIntoTable): Boolean = m.targetTable match {
    case EvolvingMergeTarget(t, false, _) => t.resolved && m.sourceTable.resolved
    case _ => false
  }

  /** `m`, its `*` expanded: Spark resolves the rest. */
  def expanded(m: MergeIntoTable): MergeIntoTable = m.targetTable match {
    case e: EvolvingMergeTarget => m.copy(targetTable = e.copy(expanded = true))
    case _ => m
  }
}

/** A MERGE's target whose schema evolves: unresolved (for Spark) until Silt has expanded the MERGE's `*`. */
final case class EvolvingMergeTarget(child: LogicalPlan, expanded: Boolean, asked: Boolean) extends UnaryNode {
  override def output: Seq[Attribute] = child.output
  override lazy val resolved: Boolean = expanded && child.resolved
  override protected def withNewChildInternal(newChild: LogicalPlan): LogicalPlan = copy(child = newChild)
}
