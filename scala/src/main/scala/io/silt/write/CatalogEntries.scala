package io.silt.write

import scala.util.control.NonFatal

import io.silt.features.ColumnMapping
import io.silt.log.Snapshot
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.types.StructType

/**
 * A catalog table's entry kept as its log has the table (columns, partition columns, comment) after
 * each statement that changes them: a metastore's copy is what SHOW TABLE EXTENDED,
 * and the tools that read it (dbt's docs), show. The log stays the table's truth: a metastore that
 * will not take a change leaves its copy, with a warning.
 */
object CatalogEntries {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /** The table's columns as a catalog keeps them (partition columns last, as Spark's catalog wants), and those. */
  def columnsOf(snapshot: Snapshot): (StructType, Seq[String]) = {
    val partCols = snapshot.metadata.partitionColumns
    val schema = ColumnMapping.logicalSchema(snapshot.metadata.schema)
    (StructType(schema.filterNot(f => partCols.contains(f.name)) ++ partCols.map(c => schema(c))), partCols)
  }

  /**
   * Updates the catalog's entry where it differs from `snapshot`; `entry`: the entry as the statement
   * found it (no metastore call when nothing changed).
   */
  def sync(spark: SparkSession, entry: CatalogTable, snapshot: Snapshot): Unit = {
    val (schema, partCols) = columnsOf(snapshot)
    val catalog = spark.sessionState.catalog
    val id = entry.identifier
    try {
      // Delta Lake registers its tables without columns (the log has them): such an entry stays so.
      if (entry.schema.nonEmpty && (!sameColumns(schema, entry.schema) || partCols != entry.partitionColumnNames)) {
        if (partCols == entry.partitionColumnNames) {
          // A Hive metastore's alterTable keeps the old columns: they change here only (dropped ones too).
          catalog.externalCatalog.alterTableDataSchema(id.database.getOrElse(catalog.getCurrentDatabase), id.table,
            StructType(schema.filterNot(f => partCols.contains(f.name))))
        } else {
          catalog.alterTable(entry.copy(schema = schema, partitionColumnNames = partCols))
        }
      }
      if (entry.comment != snapshot.metadata.description) {
        catalog.alterTable(catalog.getTableMetadata(id).copy(comment = snapshot.metadata.description))
      }
    } catch {
      case NonFatal(e) => log.warn(s"Silt: ${id.unquotedString} is at version ${snapshot.version}, but the catalog " +
        s"kept its old definition: ${e.getMessage}")
    }
  }

  /** Same names, types and comments (a metastore may not keep nullability). */
  private def sameColumns(a: StructType, b: StructType): Boolean = {
    def key(s: StructType) = SchemaEvolution.asNullable(s).fields.toSeq.map(f => (f.name, f.dataType, f.getComment()))
    key(a) == key(b)
  }
}
