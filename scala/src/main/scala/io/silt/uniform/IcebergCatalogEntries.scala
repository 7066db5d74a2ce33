package io.silt.uniform

import scala.util.control.NonFatal

import io.silt.log.TableLog
import io.silt.write.CatalogEntries
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier

/**
 * A UniForm table's entries in the session's catalog (a Hive metastore) point Iceberg's HiveCatalog at its newest
 * Iceberg metadata, as Iceberg registers its own tables there: `table_type = ICEBERG`, `metadata_location` and
 * `previous_metadata_location`. Spark and Silt keep reading the entry as the Delta table it is. The entries kept
 * so are those statements of this JVM named the table by (a write by path in another JVM leaves them at the
 * metadata they name, still readable, until a statement by name or MSCK REPAIR TABLE name SYNC METADATA).
 */
object IcebergCatalogEntries extends Logging {
  val IcebergTableType = "ICEBERG"

  /**
   * Points the table's remembered entries at its newest metadata file, or, once UniForm is off (`enabled` false),
   * takes the Iceberg parameters away from them. Failures are logged: the Delta table stands as committed.
   */
  def update(spark: SparkSession, log: TableLog, enabled: Boolean): Unit = {
    val names = CatalogEntries.namesOf(log.tablePath)
    if (names.nonEmpty && (enabled || CatalogEntries.mayHoldIceberg(log.tablePath))) lock.synchronized {
      // Read under the lock: of two conversions racing here, the later names the newer file.
      val location = if (!enabled) None else IcebergMetadataFiles.latestVersion(log).map(v =>
        log.store.fs(log.tablePath).makeQualified(IcebergMetadataFiles.metadataFile(log.tablePath, v)).toString)
      names.foreach(id => set(spark, id, log.tablePath, location))
    }
  }

  private val lock = new Object

  private def set(spark: SparkSession, id: TableIdentifier, tablePath: Path, location: Option[String]): Unit = try {
    val catalog = spark.sessionState.catalog
    if (catalog.tableExists(id)) {
      val entry = catalog.getTableMetadata(id)
      val sameTable = new Path(entry.location).toUri.normalize().getPath.stripSuffix("/") ==
        tablePath.toUri.normalize().getPath.stripSuffix("/")
      val old = entry.properties.get(CatalogEntries.IcebergMetadataLocation)
      if (sameTable && old != location) {
        val others = entry.properties -- CatalogEntries.IcebergKeys
        val iceberg = location.map(l => Map(CatalogEntries.IcebergTableType -> IcebergTableType,
          CatalogEntries.IcebergMetadataLocation -> l) ++ old.map(CatalogEntries.IcebergPreviousMetadataLocation -> _))
        catalog.alterTable(entry.copy(properties = others ++ iceberg.getOrElse(Map.empty)))
        CatalogEntries.remember(tablePath, id, iceberg = location.isDefined)
      }
    }
  } catch {
    case NonFatal(e) => logWarning(s"Silt: the catalog entry ${id.unquotedString} of the UniForm table at $tablePath " +
      s"does not name its newest Iceberg metadata: $e. Run MSCK REPAIR TABLE ${id.unquotedString} SYNC METADATA")
  }
}
