package io.silt.shims

import org.apache.spark.sql.connector.catalog.{SupportsSchemaEvolution, TableCapability, TableChange}

/**
 * A table's part in MERGE schema evolution on Spark 4.2 and later: the capability lets Spark plan
 * a MERGE WITH SCHEMA EVOLUTION with the source's new columns, and Spark applies no column change
 * of its own (that would be a commit before the MERGE's): Silt widens the target itself.
 */
trait SchemaEvolvingTable extends SupportsSchemaEvolution {
  protected def schemaEvolutionCapabilities: Set[TableCapability] = Set(TableCapability.AUTOMATIC_SCHEMA_EVOLUTION)

  override def supportsColumnChange(change: TableChange.ColumnChange): Boolean = false
}
