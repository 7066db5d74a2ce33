package io.silt.catalog

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation

/**
 * Replaces a read of a Silt catalog table with Spark's file scan over the table's snapshot, so
 * that partition pruning, skipping and the vectorized Parquet reader apply. Write targets are
 * not children of write commands, so they stay V2 relations.
 */
final class ResolveSiltRelations(spark: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case DataSourceV2Relation(t: SiltTableV2, output, _, _, _, _) =>
      LogicalRelation(t.toRelation, output, t.catalogTable, isStreaming = false, stream = None)
  }
}
