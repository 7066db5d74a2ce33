package io.silt.shims

import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable

/** MERGE WITH SCHEMA EVOLUTION (Spark 4.1 and later). */
object MergeEvolution {
  def requested(m: MergeIntoTable): Boolean = m.withSchemaEvolution

  def withEvolution(m: MergeIntoTable, setting: String): MergeIntoTable = m.copy(withSchemaEvolution = true)
}
