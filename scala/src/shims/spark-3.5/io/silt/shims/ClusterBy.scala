package io.silt.shims

import org.apache.spark.sql.catalyst.plans.logical.{AlterTableCommand, LogicalPlan}
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.expressions.{Expression, NamedReference, Transform}

/** CLUSTER BY of a new table's definition, as Spark 4's `ClusterByTransform` carries it. */
final case class ClusterByTransform(columns: Seq[String]) extends Transform {
  override def name(): String = "cluster_by"
  // None for Spark 3.5's analyzer, which would resolve them as partition columns (case-sensitively): the
  // catalog resolves them as clustering columns, as Delta Lake does
  override def references(): Array[NamedReference] = Array.empty
  override def arguments(): Array[Expression] = Array.empty
  override def toString: String = s"cluster_by(${columns.mkString(", ")})"
}

/** ALTER TABLE … CLUSTER BY, as Spark 4's `TableChange.ClusterBy` carries it. */
final case class ClusterByChange(columns: Seq[String]) extends TableChange

/** ALTER TABLE … CLUSTER BY: the change, applied by Spark's ALTER TABLE execution to the resolved table. */
final case class AlterTableClusterBy(table: LogicalPlan, columns: Seq[String]) extends AlterTableCommand {
  override def changes: Seq[TableChange] = Seq(ClusterByChange(columns))
  override protected def withNewChildInternal(newChild: LogicalPlan): LogicalPlan = copy(table = newChild)
}
