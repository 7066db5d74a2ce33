package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.features.{ColumnMapping, ProtocolRequest}
import io.silt.log.{Snapshot, TableLog}
import io.silt.read.{SiltRelation, TimeTravel}
import io.silt.write.{ColumnDefaults, SchemaEvolution, TableWriter}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType}
import org.apache.spark.sql.connector.catalog.{Column, SupportsWrite, TableCapability, TableCatalog, TruncatableTable}
import org.apache.spark.sql.connector.catalog.TableCapability._
import org.apache.spark.sql.connector.expressions.{Expressions, Transform}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.execution.datasources.HadoopFsRelation
import org.apache.spark.sql.silt.TableWithV1Fallback
import io.silt.shims.SchemaEvolvingTable
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * A Silt table as Spark's catalog API sees it. Reads are turned into a file scan by
 * [[ResolveSiltRelations]]; writes go through Spark's V1 write fallback into [[io.silt.write.TableWriter]].
 * `newColumns`: the columns an INSERT under schema auto-merge adds ([[ResolveInsertSchemaEvolution]]), which
 * its write commits with its rows.
 */
final case class SiltTableV2(
    spark: SparkSession,
    path: Path,
    catalogTable: Option[CatalogTable] = None,
    timeTravel: TimeTravel = TimeTravel.Latest,
    tableName: Option[String] = None,
    newColumns: Seq[StructField] = Nil) extends TableWithV1Fallback with SupportsWrite with TruncatableTable
    with SchemaEvolvingTable {

  lazy val log: TableLog = TableLog.forPath(spark, path.toString)
  lazy val snapshot: Snapshot = timeTravel.snapshot(log)

  override def name(): String = tableName.orElse(catalogTable.map(_.identifier.unquotedString))
    .getOrElse(s"silt.`$path`")

  // Nullable to Spark: its own not-null assertion on INSERT and UPDATE fails without naming the
  // column, while Silt checks NOT NULL columns on every write itself (write.Constraints), naming it.
  override def schema(): StructType =
    StructType(SchemaEvolution.asNullable(ColumnMapping.logicalSchema(snapshot.metadata.schema)).fields ++ newColumns)

  override def columns(): Array[Column] =
    ColumnDefaults.v2Columns(StructType(snapshot.metadata.schema.fields ++ newColumns), super.columns())

  override def partitioning(): Array[Transform] =
    snapshot.metadata.partitionColumns.map(c => Expressions.identity(c): Transform).toArray

  override def properties(): util.Map[String, String] = {
    val m = snapshot.metadata
    // A path table is a Delta table whatever its prefix, as Delta Lake describes it.
    val provider = catalogTable.flatMap(_.provider).getOrElse("delta")
    // DESCRIBE EXTENDED tells a table's type by these two, as for Delta Lake's tables.
    val tableType = catalogTable.map(_.tableType).collect {
      case CatalogTableType.EXTERNAL => TableCatalog.PROP_EXTERNAL -> "true"
      case CatalogTableType.MANAGED => TableCatalog.PROP_IS_MANAGED_LOCATION -> "true"
    }
    (m.configuration ++ ProtocolRequest.asProperties(snapshot.protocol) ++
      Map(TableCatalog.PROP_PROVIDER -> provider, TableCatalog.PROP_LOCATION -> path.toString) ++
      m.description.map(TableCatalog.PROP_COMMENT -> _) ++ tableType).asJava
  }

  override def capabilities(): util.Set[TableCapability] =
    (Set(V1_BATCH_WRITE, OVERWRITE_BY_FILTER, OVERWRITE_DYNAMIC, TRUNCATE) ++ schemaEvolutionCapabilities).asJava

  /** TRUNCATE TABLE: all rows removed in one commit. */
  override def truncateTable(): Boolean = {
    if (timeTravel != TimeTravel.Latest) {
      throw new io.silt.errors.InvalidTableOperationException(s"cannot truncate ${name()} at an earlier version")
    }
    TableWriter.truncate(spark, path)
    true
  }

  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder = {
    if (timeTravel != TimeTravel.Latest) {
      throw new io.silt.errors.InvalidTableOperationException(s"cannot write to ${name()} at an earlier version")
    }
    new SiltWriteBuilder(spark, path, info.options.asCaseSensitiveMap.asScala.toMap, catalogTable)
  }

  /**
   * The table as a V1 catalog table of the `silt` source: what `writeStream.format("silt").toTable`
   * starts Silt's streaming sink on (a path table gets a definition of its path).
   */
  override def v1Table: CatalogTable = catalogTable.map { e =>
    // an entry registered as Delta Lake registers one has no columns: they are the log's
    if (e.schema.nonEmpty) e else e.copy(schema = schema(), partitionColumnNames = snapshot.metadata.partitionColumns)
  }.getOrElse(CatalogTable(
    identifier = TableIdentifier(path.toString, Some("silt")),
    tableType = CatalogTableType.EXTERNAL,
    storage = CatalogStorageFormat.empty.copy(locationUri = Some(path.toUri)),
    schema = schema(),
    provider = Some("silt"),
    partitionColumnNames = snapshot.metadata.partitionColumns))

  /** The file-scan relation of this table at its snapshot. */
  def toRelation: HadoopFsRelation = SiltRelation.forSnapshot(spark, snapshot)
}
