package io.silt.shims

import org.apache.spark.sql.connector.catalog.StagingTableCatalog

/** A staging catalog that stages tables from their columns (Spark 4 passes nothing else). */
trait ColumnStagingCatalog extends StagingTableCatalog
