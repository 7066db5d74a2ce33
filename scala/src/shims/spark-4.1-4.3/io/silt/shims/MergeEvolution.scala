package io.silt.shims

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable}

/** MERGE WITH SCHEMA EVOLUTION (Spark 4.1 and later): Spark parses it, flags it and expands its `*` over the source. */
object MergeEvolution {
  val parsedBySpark: Boolean = true

  def requested(m: MergeIntoTable): Boolean = m.withSchemaEvolution

  def withEvolution(m: MergeIntoTable, asked: Boolean): MergeIntoTable = m.copy(withSchemaEvolution = true)

  def target(m: MergeIntoTable): LogicalPlan = m.targetTable

  def withoutEvolution(m: MergeIntoTable): MergeIntoTable = m

  def awaitsExpansion(m: MergeIntoTable): Boolean = false

  def expanded(m: MergeIntoTable): MergeIntoTable = m
}
