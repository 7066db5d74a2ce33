package io.silt.shims

import org.apache.spark.sql.sources.CreatableRelationProvider

/** A V1 writer that says which data types it takes (Spark 4 asks, through `supportsDataType`). */
trait TypeCheckingRelationProvider extends CreatableRelationProvider
