package io.silt.shims

import org.apache.spark.sql.connector.catalog.{Table, TableCapability}

/** A table's part in MERGE schema evolution on Spark 4.0, which has none: no capability to declare. */
trait SchemaEvolvingTable extends Table {
  protected def schemaEvolutionCapabilities: Set[TableCapability] = Set.empty
}
