package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.dml.ReplaceMatchingRows
import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException}
import io.silt.features.{ColumnMapping, IdentityColumns, TableProperties}
import io.silt.log.TableLog
import io.silt.read.TimeTravel
import io.silt.shims.{CatalogDefinitions, ColumnStagingCatalog}
import io.silt.uniform.IcebergCatalogEntries
import io.silt.write.{CatalogEntries, ColumnDefaults, GeneratedColumns, TableDefinition, TableWriter, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{SaveMode, SparkSession}
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType, CatalogUtils}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * The session catalog with Silt tables: `CREATE TABLE … USING silt` writes the table's first
 * commit and registers it; loading a Silt table (or a path written silt.`/path`) returns a
 * [[SiltTableV2]]. CREATE TABLE AS SELECT, REPLACE TABLE and CREATE OR REPLACE TABLE are staged
 * ([[StagedSiltTable]]) so that each is one commit. Everything else is delegated to Spark's own
 * session catalog.
 */
class SiltCatalog extends DelegatingCatalogExtension with ColumnStagingCatalog with Logging {
  private def spark: SparkSession = SparkSession.active

  // Defaults and generation expressions reach createTable as given (kept as Delta keeps them).
  override def capabilities(): util.Set[TableCatalogCapability] =
    (Seq(TableCatalogCapability.SUPPORT_COLUMN_DEFAULT_VALUE, TableCatalogCapability.SUPPORTS_CREATE_TABLE_WITH_GENERATED_COLUMNS) ++
      CatalogDefinitions.identityCapabilities).toSet.asJava

  override def loadTable(ident: Identifier): Table = load(ident, TimeTravel.Latest)

  override def loadTable(ident: Identifier, version: String): Table =
    load(ident, TimeTravel.AtVersion(try version.toLong catch {
      case _: NumberFormatException => throw new io.silt.errors.VersionNotFoundException(s"'$version' is not a version number")
    }))

  override def loadTable(ident: Identifier, timestampMicros: Long): Table =
    load(ident, TimeTravel.AsOfTimestamp(Math.floorDiv(timestampMicros, 1000L)))

  private def load(ident: Identifier, tt: TimeTravel): Table = {
    if (SiltCatalog.isPathIdentifier(ident)) {
      if (!TableLog.forPath(spark, ident.name).exists) {
        throw new NoSuchTableException(ident)
      }
      SiltTableV2(spark, new Path(ident.name), None, tt)
    } else {
      val table = super.loadTable(ident)
      table match {
        case t if Option(t.properties.get(TableCatalog.PROP_PROVIDER)).exists(p => DeltaNames.isSilt(p, Some(spark))) =>
          val entry = spark.sessionState.catalog.getTableMetadata(SiltCatalog.tableIdentifier(ident, spark))
          CatalogEntries.remember(entry)
          SiltTableV2(spark, new Path(entry.location), Some(entry), tt)
        case other if tt == TimeTravel.Latest => other
        case other => throw new InvalidTableOperationException(s"time travel is only supported on Silt tables, not ${other.name()}")
      }
    }
  }

  // A path identifier names a table when a log is there, so that REPLACE TABLE silt.`/path` and
  // CREATE TABLE IF NOT EXISTS silt.`/path` see it (Spark asks this before staging).
  override def tableExists(ident: Identifier): Boolean =
    if (SiltCatalog.isPathIdentifier(ident)) TableLog.forPath(spark, ident.name).exists else super.tableExists(ident)

  override def alterTable(ident: Identifier, changes: TableChange*): Table = loadTable(ident) match {
    case t: SiltTableV2 =>
      AlterTableChanges.run(spark, t.name(), t.path, t.schema(), changes)
      t.catalogTable.foreach(CatalogEntries.sync(spark, _, TableLog.forPath(spark, t.path.toString).latest()))
      loadTable(ident)
    case _ => super.alterTable(ident, changes: _*)
  }

  override def createTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val props = properties.asScala.toMap
    if (!SiltCatalog.isSiltProvider(props)) return super.createTable(ident, columns, partitions, properties)
    createSiltTable(ident, SiltCatalog.schemaOf(columns), partitions, props)
  }

  override def stageCreate(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = stage(ident, StagedKind.Create, columns, partitions, properties)

  override def stageReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = stage(ident, StagedKind.Replace, columns, partitions, properties)

  override def stageCreateOrReplace(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable =
    stage(ident, StagedKind.CreateOrReplace, columns, partitions, properties)

  private def stage(ident: Identifier, kind: StagedKind, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): StagedTable = {
    val props = properties.asScala.toMap
    if (!SiltCatalog.isSiltProvider(props)) {
      throw new InvalidTableOperationException(s"${kind.mode.statement} ${ident.name} with provider " +
        s"${props.getOrElse(TableCatalog.PROP_PROVIDER, "(none)")} in the Silt catalog: only USING silt tables are " +
        "created or replaced atomically; drop the table first, then create it")
    }
    new StagedSiltTable(this, ident, kind, SiltCatalog.schemaOf(columns), partitions, props)
  }

  /** Writes a staged CREATE / REPLACE as one commit, then registers or updates the catalog entry. */
  private[catalog] def commitStaged(t: StagedSiltTable): Unit = {
    val session = spark
    val props = t.tableProperties
    val existing = if (SiltCatalog.isPathIdentifier(t.ident)) None else {
      val id = SiltCatalog.tableIdentifier(t.ident, session)
      Some(id).filter(session.sessionState.catalog.tableExists).map(session.sessionState.catalog.getTableMetadata)
    }
    existing.foreach { e =>
      if (!t.kind.mayExist) throw new InvalidTableOperationException(s"table ${e.identifier.unquotedString} already exists")
      if (!SiltCatalog.isSilt(e)) throw new InvalidTableOperationException(s"table ${e.identifier.unquotedString} " +
        s"has provider ${e.provider.getOrElse("unknown")}: DROP it before replacing it with a Silt table")
    }
    if (existing.isEmpty && t.kind.mustExist && !SiltCatalog.isPathIdentifier(t.ident)) {
      throw new NoSuchTableException(t.ident)
    }
    val location = existing.map(e => new Path(e.location)).getOrElse(locationOf(t.ident, props))
    if (existing.isEmpty && !t.kind.mayExist) requireEmptyManagedLocation(t.ident, location, props)
    if (t.kind.mustExist && !TableLog.forPath(session, location.toString).exists) {
      throw new io.silt.errors.NotADeltaTableException(location.toString, "REPLACE TABLE needs an existing table")
    }
    val options = WriteOptions.fromOptions(session, SaveMode.Overwrite, t.writeOptions, None)
    val definition = definitionOf(t.schema, t.partitioning, props)
    if (t.query.isDefined && options.replaceMatching.isDefined) {
      // saveAsTable in mode overwrite with replaceUsing / replaceOn: the rows matching the data replaced
      ReplaceMatchingRows.run(session, location, t.query.get, options)
    } else if (existing.isDefined && t.query.isDefined && (options.replaceWhere.isDefined || explicitlyDynamic(t.writeOptions))) {
      // saveAsTable in mode overwrite asked to replace some rows only: an overwrite of the existing table
      ReplaceMatchingRows.write(session, location, t.query.get, options.copy(partitionBy = Some(definition.partitionColumns),
        clusterBy = definition.clusterBy, dynamicPartitionOverwrite = options.replaceWhere.isEmpty))
    } else {
      TableWriter.replace(session, location, definition, t.query, options, t.kind.mode,
        mayExist = t.kind.mayExist)
    }
    if (!SiltCatalog.isPathIdentifier(t.ident)) register(t.ident, location, props, existing)
  }

  private def explicitlyDynamic(options: Map[String, String]): Boolean =
    options.exists { case (k, v) => k.equalsIgnoreCase("partitionOverwriteMode") && v.trim.equalsIgnoreCase("dynamic") }

  private def createSiltTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      props: Map[String, String]): Table = {
    val session = spark
    if (SiltCatalog.isPathIdentifier(ident)) {
      val location = new Path(ident.name)
      TableWriter.create(session, location, definitionOf(schema, partitions, props))
      return SiltTableV2(session, location)
    }
    val tableId = SiltCatalog.tableIdentifier(ident, session)
    if (session.sessionState.catalog.tableExists(tableId)) {
      throw new InvalidTableOperationException(s"table ${tableId.unquotedString} already exists")
    }
    val location = locationOf(ident, props)
    requireEmptyManagedLocation(ident, location, props)
    TableLog.forPath(session, location.toString).latestOption() match {
      case Some(existing) =>
        // CREATE TABLE over an existing Silt table: adopt it; a stated schema must agree.
        if (schema.nonEmpty && !SiltCatalog.sameColumns(schema, ColumnMapping.logicalSchema(existing.metadata.schema))) {
          throw new SchemaMismatchException(s"the location $location already holds a Delta table with schema " +
            s"${existing.metadata.schema.simpleString}, not ${schema.simpleString}: CREATE TABLE without a schema " +
            "registers it as it is, CREATE OR REPLACE TABLE replaces it")
        }
      case None =>
        if (schema.isEmpty) {
          throw new SchemaMismatchException(s"CREATE TABLE ${ident.name} USING silt needs a schema: " +
            s"there is no Silt table at $location to take one from")
        }
        TableWriter.create(session, location, definitionOf(schema, partitions, props))
    }
    register(ident, location, props, None)
  }

  /**
   * A new managed table's folder must be empty, as in Delta Lake: files left there (by a table
   * dropped outside the catalog, or by another writer) are not adopted into a table nobody asked for.
   */
  private def requireEmptyManagedLocation(ident: Identifier, location: Path, props: Map[String, String]): Unit =
    if (!SiltCatalog.isPathIdentifier(ident) && !props.contains(TableCatalog.PROP_LOCATION)) {
      val fs = location.getFileSystem(spark.sessionState.newHadoopConf())
      if (fs.exists(location) && fs.listStatus(location).nonEmpty) {
        throw new InvalidTableOperationException(s"cannot create the managed table ${ident.name}: its location " +
          s"$location is not empty; remove what is there, or register an existing table with LOCATION '…'")
      }
    }

  /** Where a new table goes: its LOCATION, else the warehouse's path for its name. */
  private def locationOf(ident: Identifier, props: Map[String, String]): Path =
    if (SiltCatalog.isPathIdentifier(ident)) new Path(ident.name)
    else props.get(TableCatalog.PROP_LOCATION).map(l => new Path(CatalogUtils.stringToURI(l)))
      .getOrElse(new Path(spark.sessionState.catalog.defaultTablePath(SiltCatalog.tableIdentifier(ident, spark))))

  /** Creates (or, for a replaced table, updates) the catalog entry of the Silt table at `location`. */
  private def register(ident: Identifier, location: Path, props: Map[String, String],
      existing: Option[CatalogTable]): Table = {
    val session = spark
    val tableId = SiltCatalog.tableIdentifier(ident, session)
    SiltCatalog.register(session, tableId.copy(catalog = Some(name())), location, props, existing)
    SiltTableV2(session, location, Some(session.sessionState.catalog.getTableMetadata(tableId)))
  }

  /** DROP TABLE: a managed Silt table's folder goes with it; no cached snapshot of the path outlives it. */
  override def dropTable(ident: Identifier): Boolean = dropSilt(ident, purge = false)

  override def purgeTable(ident: Identifier): Boolean = dropSilt(ident, purge = true)

  private def dropSilt(ident: Identifier, purge: Boolean): Boolean = {
    val session = spark
    val entry = if (SiltCatalog.isPathIdentifier(ident)) None else {
      val id = SiltCatalog.tableIdentifier(ident, session)
      Some(id).filter(session.sessionState.catalog.tableExists).map(session.sessionState.catalog.getTableMetadata)
        .filter(SiltCatalog.isSilt)
    }
    val dropped = if (purge) super.purgeTable(ident) else super.dropTable(ident)
    entry.foreach { e =>
      val location = new Path(e.location)
      if (dropped && e.tableType == CatalogTableType.MANAGED) {
        val fs = location.getFileSystem(session.sessionState.newHadoopConf())
        if (fs.exists(location)) fs.delete(location, true)
      }
      TableLog.forget(session, location.toString)
    }
    dropped
  }

  private def partitionColumnsOf(partitions: Array[Transform]): Seq[String] = partitions.toSeq.flatMap {
    case t if t.name == "identity" && t.references.length == 1 => Some(t.references.head.fieldNames.mkString("."))
    case t if CatalogDefinitions.clusteringOf(t).isDefined => None
    case other => throw new InvalidTableOperationException(s"Silt tables are partitioned by columns, not by $other")
  }

  /** The CLUSTER BY columns among a new table's transforms; partitioning it too is refused, as in Delta Lake. */
  private def clusteringOf(partitions: Array[Transform]): Option[Seq[String]] = {
    val clusterBy = partitions.toSeq.flatMap(t => CatalogDefinitions.clusteringOf(t)).headOption
    if (clusterBy.isDefined && partitionColumnsOf(partitions).nonEmpty) {
      throw new InvalidTableOperationException("clustering and partitioning cannot both be specified: remove " +
        "PARTITIONED BY (or partitionBy) to create a clustered table")
    }
    clusterBy
  }

  private def definitionOf(schema: StructType, partitions: Array[Transform], props: Map[String, String]): TableDefinition =
    TableDefinition(schema, partitionColumnsOf(partitions), tableProperties(props), props.get(TableCatalog.PROP_COMMENT),
      clusteringOf(partitions))

  /** The user's table properties, without the catalog's reserved keys and OPTIONS. */
  private def tableProperties(props: Map[String, String]): Map[String, String] =
    props.filter { case (k, _) => !SiltCatalog.ReservedProperties.contains(k) && !k.startsWith("option.") }

}

object SiltCatalog {
  /** Same column names (in any case) and types, whatever the nullability and field metadata. */
  def sameColumns(a: StructType, b: StructType): Boolean =
    a.length == b.length && a.fields.zip(b.fields).forall { case (x, y) =>
      x.name.equalsIgnoreCase(y.name) && x.dataType.catalogString == y.dataType.catalogString
    }

  /** Whether `changes` are Spark's form of REPLACE COLUMNS: every top-level column deleted, then the new ones added. */
  def isReplaceColumns(schema: StructType, changes: Seq[TableChange]): Boolean = {
    val (deletes, adds) = changes.span(_.isInstanceOf[TableChange.DeleteColumn])
    adds.nonEmpty && adds.forall(_.isInstanceOf[TableChange.AddColumn]) &&
      deletes.map(_.asInstanceOf[TableChange.DeleteColumn].fieldNames.toSeq) == schema.fieldNames.toSeq.map(Seq(_))
  }

  def isSiltProvider(props: Map[String, String]): Boolean =
    props.get(TableCatalog.PROP_PROVIDER).exists(p => DeltaNames.isSilt(p))

  /** The table schema of declared columns, their defaults, generation expressions and identities kept as Delta keeps them. */
  def schemaOf(columns: Array[Column]): StructType = StructType(columns.toSeq.map { c =>
    val f = StructField(c.name, c.dataType, c.nullable)
    val commented = Option(c.comment).map(f.withComment).getOrElse(f)
    val defaulted = ColumnDefaults.withDefault(commented, Option(c.defaultValue).map(_.getSql))
    val generated = Option(c.generationExpression).map(GeneratedColumns.withExpression(defaulted, _)).getOrElse(defaulted)
    CatalogDefinitions.identityOf(c).map { case (start, step, explicit) => IdentityColumns.define(generated, start, step, explicit) }
      .getOrElse(generated)
  })

  private[catalog] val ReservedProperties = Set(TableCatalog.PROP_PROVIDER, TableCatalog.PROP_LOCATION,
    TableCatalog.PROP_COMMENT, TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL,
    TableCatalog.PROP_IS_MANAGED_LOCATION, "path")

  def tableIdentifier(ident: Identifier, spark: SparkSession): TableIdentifier =
    TableIdentifier(ident.name, Some(ident.namespace.lastOption.getOrElse(spark.sessionState.catalog.getCurrentDatabase)))

  def isSilt(t: CatalogTable): Boolean = t.provider.exists(p => DeltaNames.isSilt(p))

  /**
   * Creates (or, for a replaced table, updates) the catalog entry `tableId` of the Silt table just
   * committed at `location`, as Delta Lake registers its tables (write.CatalogEntries). `props`: the
   * statement's (LOCATION or EXTERNAL make it external; the provider name is kept when it is Silt's).
   */
  def register(session: SparkSession, tableId: TableIdentifier, location: Path, props: Map[String, String],
      existing: Option[CatalogTable]): Unit = {
    val catalog = session.sessionState.catalog
    val snapshot = TableLog.forPath(session, location.toString).latest()
    existing match {
      case Some(e) => CatalogEntries.replaced(session, e, snapshot)
      case None =>
        val external = props.contains(TableCatalog.PROP_LOCATION) || props.contains(TableCatalog.PROP_EXTERNAL)
        val (schema, properties) = CatalogEntries.forNewTable(session, snapshot)
        catalog.createTable(CatalogTable(
          identifier = tableId,
          tableType = if (external) CatalogTableType.EXTERNAL else CatalogTableType.MANAGED,
          storage = CatalogStorageFormat.empty.copy(locationUri = Some(location.toUri)),
          schema = schema,
          provider = Some(props.get(TableCatalog.PROP_PROVIDER).filter(DeltaNames.isSilt(_)).getOrElse("silt").toLowerCase),
          properties = properties,
          comment = snapshot.metadata.description), ignoreIfExists = false, validateLocation = false)
    }
    // The commit's conversion (if UniForm is on) may have ended before the entry was there to point at it.
    CatalogEntries.remember(catalog.getTableMetadata(tableId))
    if (TableProperties(snapshot.metadata.configuration).icebergEnabled) {
      IcebergCatalogEntries.update(session, TableLog.forPath(session, location.toString), enabled = true)
    }
  }

  private val log = org.slf4j.LoggerFactory.getLogger(classOf[SiltCatalog])

  /** silt.`/abs/path` (or delta.`/abs/path`, when Silt serves Delta Lake's names) names a table by its path. */
  def isPathIdentifier(ident: Identifier): Boolean =
    ident.namespace.length == 1 && DeltaNames.isSilt(ident.namespace.head) && new Path(ident.name).isAbsolute
}
