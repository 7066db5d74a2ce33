package io.silt.shims

import io.silt.errors.UnsupportedOptionException
import org.apache.spark.sql.catalyst.plans.logical.MergeIntoTable

/** MERGE schema evolution on Spark 3.5 and 4.0, whose MERGE has none: never asked for, refused when set. */
object MergeEvolution {
  def requested(m: MergeIntoTable): Boolean = false

  def withEvolution(m: MergeIntoTable, setting: String): MergeIntoTable =
    throw new UnsupportedOptionException(setting, s"$setting needs Spark 4.1 or later (this Spark's MERGE has no " +
      "schema evolution); add the new columns with ALTER TABLE … ADD COLUMNS first, or unset it")
}
