package io.silt.shims

import org.apache.spark.sql.catalyst.analysis.NamedRelation
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, OverwritePartitionsDynamic}

/** A dynamic INSERT OVERWRITE as (table, query, options, with schema evolution). */
object DynamicOverwrite {
  def unapply(o: OverwritePartitionsDynamic): Option[(NamedRelation, LogicalPlan, Map[String, String], Boolean)] =
    Some((o.table, o.query, o.writeOptions, o.withSchemaEvolution))
}
