package io.silt.shims

import org.apache.spark.sql.connector.catalog.{Table, TableCapability}

/** A table's part in MERGE schema evolution on Spark 3.5 and 4.0, which have none: no capability to declare. */
trait SchemaEvolvingTable extends Table {
  protected def schemaEvolutionCapabilities: Set[TableCapability] = Set.empty
}
