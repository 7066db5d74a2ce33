package io.silt.write

import java.nio.charset.StandardCharsets

import scala.util.control.NonFatal

import io.silt.config.SiltSettings
import io.silt.features.{Clustering, ColumnMapping, ProtocolRequest, TableProperties}
import io.silt.log.Snapshot
import org.apache.spark.sql.SparkSession
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.types.StructType

/**
 * What a catalog table's entry holds of the table, as Delta Lake keeps it: by default a new table's entry
 * has neither columns nor properties (the log has them; readers load the table from it); a replaced table's
 * entry gets the log's columns, every one a data column in the log's order, and its properties; with
 * `catalog.update.enabled` every entry has them from its creation. An entry that holds columns is kept as
 * the log has the table after each statement that changes it (Delta Lake leaves a replaced table's copy as
 * the replace made it): a metastore's copy is what SHOW TABLE EXTENDED, and the tools that read it (dbt's
 * docs), show. The log stays the table's truth: a metastore that will not take a change leaves its copy,
 * with a warning.
 */
object CatalogEntries {
  private val log = org.slf4j.LoggerFactory.getLogger(getClass)

  /** Why an entry has no columns, when the table's were not stored: Delta Lake's property. */
  val UpdateErrorKey = "delta.catalogUpdateError"
  /** The version and commit time (ms) of the log that an entry's columns and properties are: Delta Lake's. */
  val LastUpdateVersion = "delta.lastUpdateVersion"
  val LastCommitTimestamp = "delta.lastCommitTimestamp"

  /**
   * The parameters by which an Iceberg catalog on the same metastore (Iceberg's HiveCatalog) finds a UniForm
   * table's Iceberg metadata: the metastore's copy of the table keeps them whatever else changes in it.
   */
  val IcebergTableType = "table_type"
  val IcebergMetadataLocation = "metadata_location"
  val IcebergPreviousMetadataLocation = "previous_metadata_location"
  val IcebergKeys: Seq[String] = Seq(IcebergTableType, IcebergMetadataLocation, IcebergPreviousMetadataLocation)

  // The catalog entries of each table path that statements of this JVM resolved, and the paths some entry of
  // which was seen (or made) holding Iceberg parameters.
  private val named = new java.util.concurrent.ConcurrentHashMap[String, Set[TableIdentifier]]()
  private val withIceberg = java.util.concurrent.ConcurrentHashMap.newKeySet[String]()

  /** Remembers that `entry` names the table at its location (for [[namesOf]]). */
  def remember(entry: CatalogTable): Unit = remember(new Path(entry.location), entry.identifier,
    entry.properties.contains(IcebergMetadataLocation))

  /** Remembers that the entry `id` names the table at `location`, and whether it now holds Iceberg parameters. */
  def remember(location: Path, id: TableIdentifier, iceberg: Boolean): Unit = {
    named.merge(key(location), Set(id), (a: Set[TableIdentifier], b: Set[TableIdentifier]) => a ++ b)
    if (iceberg) withIceberg.add(key(location))
  }

  /** Whether an entry of the table at `location` may hold Iceberg parameters (as far as this JVM saw). */
  def mayHoldIceberg(location: Path): Boolean = withIceberg.contains(key(location))

  /** The catalog entries this JVM has seen name the table at `location` (each may since have gone or moved). */
  def namesOf(location: Path): Set[TableIdentifier] = Option(named.get(key(location))).getOrElse(Set.empty)

  private def key(location: Path): String = location.toUri.normalize().getPath.stripSuffix("/")

  /** The columns and properties a new table's entry is registered with (none unless `catalog.update.enabled`). */
  def forNewTable(spark: SparkSession, snapshot: Snapshot): (StructType, Map[String, String]) =
    if (SiltSettings.CatalogUpdate(spark)) stored(spark, snapshot) else (new StructType(), Map.empty)

  /** A replaced table's entry: the log's columns and properties, whatever the entry held before. */
  def replaced(spark: SparkSession, entry: CatalogTable, snapshot: Snapshot): Unit =
    update(spark, entry, snapshot, replacing = true)

  /**
   * After a statement changed the table: an entry that holds columns (or every entry, with
   * `catalog.update.enabled`) gets the log's columns and properties where they differ; `entry`: the entry as
   * the statement found it (no metastore call when nothing changed).
   */
  def sync(spark: SparkSession, entry: CatalogTable, snapshot: Snapshot): Unit =
    update(spark, entry, snapshot, replacing = false)

  private def update(spark: SparkSession, entry: CatalogTable, snapshot: Snapshot, replacing: Boolean): Unit = {
    val catalog = spark.sessionState.catalog
    val id = entry.identifier
    val db = id.database.getOrElse(catalog.getCurrentDatabase)
    try {
      if (replacing || SiltSettings.CatalogUpdate(spark) || entry.schema.nonEmpty) {
        val (schema, properties) = stored(spark, snapshot)
        val parts = entry.partitionColumnNames
        // An entry an earlier Silt registered with partition columns (kept last, as Spark's catalog wants
        // them): a Hive metastore will not change those, so only its data columns follow the log's.
        val data = StructType(schema.filterNot(f => parts.contains(f.name)))
        if (!sameColumns(data, StructType(entry.schema.filterNot(f => parts.contains(f.name))))) {
          // A Hive metastore's alterTable keeps the old columns: they change here only (dropped ones too).
          catalog.externalCatalog.alterTableDataSchema(db, id.table, data)
        }
        val changed = (properties -- Seq(LastUpdateVersion, LastCommitTimestamp)).exists { case (k, v) =>
          !entry.properties.get(k).contains(v) }
        if (replacing || changed) {
          val current = catalog.getTableMetadata(id)
          val iceberg = if (TableProperties(snapshot.metadata.configuration).icebergEnabled) {
            current.properties.filter(p => IcebergKeys.contains(p._1))
          } else Map.empty[String, String]
          catalog.alterTable(current.copy(properties = properties ++ iceberg))
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

  /**
   * The columns (none when one is too long for a metastore, or not Latin-1, as Delta Lake decides) and the
   * properties an entry stores: the table's, its protocol's, the version and commit time they are of, and
   * its clustering columns.
   */
  private def stored(spark: SparkSession, snapshot: Snapshot): (StructType, Map[String, String]) = {
    val schema = ColumnMapping.logicalSchema(snapshot.metadata.schema)
    val threshold = SiltSettings.CatalogUpdateTruncation(spark)
    val latin1 = StandardCharsets.ISO_8859_1.newEncoder()
    val error = schema.fields.iterator.map { f =>
      if (f.dataType.catalogString.length > threshold) Some("The schema contains a very long nested field and " +
        "cannot be stored in the catalog.")
      else if (!latin1.canEncode(f.name) || !latin1.canEncode(f.dataType.catalogString)) Some("The schema " +
        "contains non-latin encoding characters and cannot be stored in the catalog.")
      else None
    }.collectFirst { case Some(e) => e }
    val properties = snapshot.metadata.configuration ++ ProtocolRequest.asProperties(snapshot.protocol) ++
      clusteringProperty(snapshot) ++ error.map(UpdateErrorKey -> _) ++
      Map(LastUpdateVersion -> snapshot.version.toString, LastCommitTimestamp -> snapshot.timestamp.toString)
    (if (error.isDefined) new StructType() else schema, properties)
  }

  /** Spark's catalog property of CLUSTER BY columns (a JSON array of name paths), for a clustered table. */
  private def clusteringProperty(snapshot: Snapshot): Map[String, String] =
    if (!snapshot.protocol.writerFeatures.exists(_.contains("clustering"))) Map.empty
    else Clustering.physicalColumns(snapshot.domains).map { physical =>
      val paths = Clustering.logicalPaths(snapshot.metadata.schema, physical)
      "clusteringColumns" -> paths.map(_.map(p => "\"" + p.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
        .mkString("[", ",", "]")).mkString("[", ",", "]")
    }.toMap

  /** Same names, types and comments (a metastore may not keep nullability). */
  private def sameColumns(a: StructType, b: StructType): Boolean = {
    def key(s: StructType) = SchemaEvolution.asNullable(s).fields.toSeq.map(f => (f.name, f.dataType, f.getComment()))
    key(a) == key(b)
  }
}
