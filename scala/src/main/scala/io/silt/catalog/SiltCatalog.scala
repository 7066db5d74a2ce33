package io.silt.catalog

import java.util

import scala.jdk.CollectionConverters._

import io.silt.errors.{InvalidTableOperationException, SchemaMismatchException}
import io.silt.log.TableLog
import io.silt.read.TimeTravel
import io.silt.write.TableWriter
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.catalog.{CatalogStorageFormat, CatalogTable, CatalogTableType, CatalogUtils}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{StructField, StructType}

/**
 * The session catalog with Silt tables: `CREATE TABLE … USING silt` writes the table's first
 * commit and registers it; loading a Silt table (or a path written silt.`/path`) returns a
 * [[SiltTableV2]]. Everything else is delegated to Spark's own session catalog.
 */
class SiltCatalog extends DelegatingCatalogExtension {
  private def spark: SparkSession = SparkSession.active

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
        case t if Option(t.properties.get(TableCatalog.PROP_PROVIDER)).exists(_.equalsIgnoreCase("silt")) =>
          val entry = spark.sessionState.catalog.getTableMetadata(SiltCatalog.tableIdentifier(ident, spark))
          SiltTableV2(spark, new Path(entry.location), Some(entry), tt)
        case other if tt == TimeTravel.Latest => other
        case other => throw new InvalidTableOperationException(s"time travel is only supported on Silt tables, not ${other.name()}")
      }
    }
  }

  override def alterTable(ident: Identifier, changes: TableChange*): Table = loadTable(ident) match {
    case t: SiltTableV2 =>
      val set = changes.collect { case p: TableChange.SetProperty => p.property -> p.value }.toMap
      val unset = changes.collect { case p: TableChange.RemoveProperty => p.property }
      changes.filterNot(c => c.isInstanceOf[TableChange.SetProperty] || c.isInstanceOf[TableChange.RemoveProperty])
        .headOption.foreach { c =>
          throw new InvalidTableOperationException(s"ALTER TABLE ${t.name()}: ${c.getClass.getSimpleName} is not supported on Silt tables yet")
        }
      TableWriter.alterProperties(spark, t.path, set.filter { case (k, _) => !SiltCatalog.ReservedProperties.contains(k) },
        unset.filterNot(SiltCatalog.ReservedProperties.contains))
      t.catalogTable.foreach { entry =>
        spark.sessionState.catalog.alterTable(entry.copy(properties = entry.properties -- unset ++ set))
      }
      loadTable(ident)
    case _ => super.alterTable(ident, changes: _*)
  }

  override def createTable(ident: Identifier, columns: Array[Column], partitions: Array[Transform],
      properties: util.Map[String, String]): Table = {
    val props = properties.asScala.toMap
    if (!props.get(TableCatalog.PROP_PROVIDER).exists(_.equalsIgnoreCase("silt"))) {
      return super.createTable(ident, columns, partitions, properties)
    }
    val schema = StructType(columns.toSeq.map { c =>
      val f = StructField(c.name, c.dataType, c.nullable)
      Option(c.comment).map(f.withComment).getOrElse(f)
    })
    createSiltTable(ident, schema, partitions, props)
  }

  private def createSiltTable(ident: Identifier, schema: StructType, partitions: Array[Transform],
      props: Map[String, String]): Table = {
    val session = spark
    if (SiltCatalog.isPathIdentifier(ident)) {
      val location = new Path(ident.name)
      TableWriter.create(session, location, schema, partitionColumnsOf(partitions), tableProperties(props),
        props.get(TableCatalog.PROP_COMMENT))
      return SiltTableV2(session, location)
    }
    val catalog = session.sessionState.catalog
    val tableId = SiltCatalog.tableIdentifier(ident, session)
    if (catalog.tableExists(tableId)) {
      throw new InvalidTableOperationException(s"table ${tableId.unquotedString} already exists")
    }
    val partitionColumns = partitionColumnsOf(partitions)
    val explicitLocation = props.get(TableCatalog.PROP_LOCATION)
    val location = explicitLocation.map(l => new Path(CatalogUtils.stringToURI(l)))
      .getOrElse(new Path(catalog.defaultTablePath(tableId)))
    val tableProps = tableProperties(props)
    val log = TableLog.forPath(session, location.toString)
    val tableSchema = log.latestOption() match {
      case Some(existing) =>
        // CREATE TABLE over an existing Silt table: adopt it; a stated schema must agree.
        if (schema.nonEmpty && !sameColumns(schema, existing.metadata.schema)) {
          throw new SchemaMismatchException(s"the table at $location has schema " +
            s"${existing.metadata.schema.simpleString}, not ${schema.simpleString}")
        }
        existing.metadata.schema
      case None =>
        if (schema.isEmpty) {
          throw new SchemaMismatchException(s"CREATE TABLE ${ident.name} USING silt needs a schema: " +
            s"there is no Silt table at $location to take one from")
        }
        TableWriter.create(session, location, schema, partitionColumns, tableProps, props.get(TableCatalog.PROP_COMMENT))
        schema
    }
    val snapshot = log.latest()
    val partCols = snapshot.metadata.partitionColumns
    // Spark's catalog wants partition columns last; the log keeps the real column order.
    val catalogSchema = StructType(tableSchema.filterNot(f => partCols.contains(f.name)) ++
      partCols.map(c => tableSchema(c)))
    val entry = CatalogTable(
      identifier = tableId.copy(catalog = Some(name())),
      tableType = if (explicitLocation.isDefined || props.contains(TableCatalog.PROP_EXTERNAL)) CatalogTableType.EXTERNAL
                  else CatalogTableType.MANAGED,
      storage = CatalogStorageFormat.empty.copy(locationUri = Some(location.toUri)),
      schema = catalogSchema,
      provider = Some("silt"),
      partitionColumnNames = partCols,
      properties = tableProps,
      comment = props.get(TableCatalog.PROP_COMMENT))
    catalog.createTable(entry, ignoreIfExists = false, validateLocation = false)
    SiltTableV2(session, location, Some(catalog.getTableMetadata(tableId)))
  }

  private def partitionColumnsOf(partitions: Array[Transform]): Seq[String] = partitions.toSeq.map {
    case t if t.name == "identity" && t.references.length == 1 => t.references.head.fieldNames.mkString(".")
    case other => throw new InvalidTableOperationException(s"Silt tables are partitioned by columns, not by $other")
  }

  /** The user's table properties, without the catalog's reserved keys and OPTIONS. */
  private def tableProperties(props: Map[String, String]): Map[String, String] =
    props.filter { case (k, _) => !SiltCatalog.ReservedProperties.contains(k) && !k.startsWith("option.") }

  private def sameColumns(a: StructType, b: StructType): Boolean =
    a.length == b.length && a.fields.zip(b.fields).forall { case (x, y) =>
      x.name.equalsIgnoreCase(y.name) && x.dataType.catalogString == y.dataType.catalogString
    }
}

object SiltCatalog {
  private val ReservedProperties = Set(TableCatalog.PROP_PROVIDER, TableCatalog.PROP_LOCATION,
    TableCatalog.PROP_COMMENT, TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL,
    TableCatalog.PROP_IS_MANAGED_LOCATION, "path")

  def tableIdentifier(ident: Identifier, spark: SparkSession): TableIdentifier =
    TableIdentifier(ident.name, Some(ident.namespace.lastOption.getOrElse(spark.sessionState.catalog.getCurrentDatabase)))

  def isSilt(t: CatalogTable): Boolean = t.provider.exists(_.equalsIgnoreCase("silt"))

  /** silt.`/abs/path` names a table by its path. */
  def isPathIdentifier(ident: Identifier): Boolean =
    ident.namespace.length == 1 && ident.namespace.head.equalsIgnoreCase("silt") &&
      new Path(ident.name).isAbsolute
}
