package io.silt.shims

import org.apache.spark.sql.sources.CreatableRelationProvider
import org.apache.spark.sql.types.DataType

/** A V1 writer that says which data types it takes; Spark 3.5 does not ask. */
trait TypeCheckingRelationProvider extends CreatableRelationProvider {
  def supportsDataType(dt: DataType): Boolean
}
