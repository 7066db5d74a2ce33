package io.silt.shims

import org.apache.spark.sql.connector.catalog.{Table, TableCapability}

/** A table's part in MERGE schema evolution on Spark 4.1: the capability lets Spark plan a MERGE WITH SCHEMA EVOLUTION. */
trait SchemaEvolvingTable extends Table {
  protected def schemaEvolutionCapabilities: Set[TableCapability] = Set(TableCapability.AUTOMATIC_SCHEMA_EVOLUTION)
}
