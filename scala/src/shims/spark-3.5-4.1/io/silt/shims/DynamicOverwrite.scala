package io.silt.shims

import org.apache.spark.sql.catalyst.analysis.NamedRelation
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, OverwritePartitionsDynamic}

/** A dynamic INSERT OVERWRITE as (table, query, options, with schema evolution); Spark 3.5 to 4.1 have no INSERT WITH SCHEMA EVOLUTION. */
object DynamicOverwrite {
  def unapply(o: OverwritePartitionsDynamic): Option[(NamedRelation, LogicalPlan, Map[String, String], Boolean)] =
    Some((o.table, o.query, o.writeOptions, false))
}
