package io.silt.sql

import io.silt.catalog.SiltCatalog
import io.silt.convert.CatalogSource
import io.silt.convert.ConvertToDelta
import io.silt.errors.{ConvertToDeltaException, NotADeltaTableException}
import io.silt.spark.JobDescription
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.connector.catalog.Identifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.StructType

/**
 * CONVERT TO DELTA parquet.`/path` | table [NO STATISTICS] [PARTITIONED BY (col type, …)]: the
 * Parquet folder (or catalog Parquet table) becomes a Silt table in place; a catalog table's
 * provider becomes silt. On a table that is already a Delta table it does nothing and says so.
 */
final case class ConvertCommand(table: TableRef, partitionSchema: Option[StructType], collectStats: Boolean)
    extends LeafRunnableCommand with Logging {

  override def run(spark: SparkSession): Seq[Row] = {
    val (path, entry) = resolve(spark)
    for (declared <- partitionSchema; e <- entry if !SiltCatalog.sameColumns(declared, e.partitionSchema)) {
      throw new ConvertToDeltaException(table.display, s"CONVERT TO DELTA ${table.display} PARTITIONED BY " +
        s"(${declared.toDDL}): the catalog partitions the table by (${e.partitionSchema.toDDL}); leave PARTITIONED BY " +
        "out, and the catalog's partition schema is used")
    }
    val partitions = partitionSchema.orElse(entry.map(_.partitionSchema)).getOrElse(new StructType())
    val result = JobDescription(spark, s"CONVERT TO DELTA ${path.getName}")(
      ConvertToDelta.run(spark, path, partitions, collectStats,
        entry.map(e => CatalogSource(e.identifier.unquotedString, e.dataSchema))))
    if (result.version.isEmpty) {
      logWarning(s"Silt: CONVERT TO DELTA ${table.display}: $path is a Delta table already; nothing was converted")
    }
    entry.filterNot(SiltCatalog.isSilt).foreach { e =>
      spark.sessionState.catalog.alterTable(e.copy(provider = Some("silt"), tracksPartitionsInCatalog = false))
    }
    Nil
  }

  /** The folder to convert and, for a catalog table, its entry. */
  private def resolve(spark: SparkSession): (Path, Option[CatalogTable]) = table match {
    case TableRef.ByPath(raw) => (new Path(raw), None)
    case TableRef.ByName(Seq(format, raw)) if format.equalsIgnoreCase("parquet") => (new Path(raw), None)
    case TableRef.ByName(Seq(format, raw)) if SiltCatalog.isPathIdentifier(Identifier.of(Array(format), raw)) =>
      (new Path(raw), None)
    case TableRef.ByName(Seq(format, _)) if Set("iceberg", "orc", "json", "csv", "avro", "text").contains(format.toLowerCase) =>
      throw new ConvertToDeltaException(table.display, s"CONVERT TO DELTA ${table.display}: Silt converts Parquet " +
        s"folders and tables only, not $format")
    case TableRef.ByName(parts) =>
      val id = parts match {
        case Seq(t) => TableIdentifier(t)
        case Seq(db, t) => TableIdentifier(t, Some(db))
        case _ => throw new ConvertToDeltaException(table.display, s"${table.display} is not a table name Silt converts")
      }
      val catalog = spark.sessionState.catalog
      if (!catalog.tableExists(id)) throw new NotADeltaTableException(table.display, "no such table in the catalog")
      val e = catalog.getTableMetadata(id)
      val provider = e.provider.getOrElse("").toLowerCase
      val parquetSerde = e.storage.serde.exists(_.toLowerCase.contains("parquet"))
      if (!SiltCatalog.isSilt(e) && provider != "parquet" && !(provider == "hive" && parquetSerde)) {
        throw new ConvertToDeltaException(table.display, s"CONVERT TO DELTA ${table.display}: its provider is " +
          s"${e.provider.getOrElse("unknown")}; Silt converts Parquet tables only")
      }
      (new Path(e.location), Some(e))
  }
}
