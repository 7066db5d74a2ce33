package io.silt.sql

import io.silt.catalog.SiltCatalog
import io.silt.clone.ShallowClone
import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import io.silt.log.TableLog
import io.silt.read.TimeTravel
import io.silt.spark.JobDescription
import io.silt.txn.CreateMode
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException
import org.apache.spark.sql.catalyst.catalog.CatalogUtils
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.connector.catalog.{Identifier, TableCatalog}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.types.LongType

/**
 * CREATE [OR REPLACE] TABLE target [IF NOT EXISTS] SHALLOW CLONE source [VERSION AS OF n |
 * TIMESTAMP AS OF ts] [TBLPROPERTIES (…)] [LOCATION '…']: the target is a path (silt.`/p`) or a
 * catalog name, registered in the catalog when new. Returns Delta Lake's clone metrics.
 */
final case class CloneCommand(target: TableRef, source: TableRef, sourceVersion: TimeTravel, mode: CreateMode,
    ifNotExists: Boolean, properties: Map[String, String], location: Option[String]) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = Seq("source_table_size", "source_num_of_files", "num_removed_files",
    "num_copied_files", "removed_files_size", "copied_files_size").map(AttributeReference(_, LongType)())

  override def run(spark: SparkSession): Seq[Row] = {
    val sourcePath = sourceTable(spark)
    val snapshot = sourceVersion.snapshot(TableLog.forPath(spark, sourcePath.toString))
    val sourceName = source match {
      case TableRef.ByName(parts) if !isPath(parts) => parts.mkString(".")
      case _ => s"silt.`$sourcePath`"
    }
    val result = target match {
      case TableRef.ByName(parts) if !isPath(parts) => cloneToName(spark, parts, snapshot, sourceName)
      case t =>
        if (location.isDefined) {
          throw new InvalidTableOperationException(s"SHALLOW CLONE into the path ${t.display} takes no LOCATION")
        }
        val path = t.path(spark)
        if (ifNotExists && TableLog.forPath(spark, path.toString).exists) None
        else Some(JobDescription(spark, s"SHALLOW CLONE into ${path.getName}")(
          ShallowClone.run(spark, snapshot, sourceName, path, mode, properties)))
    }
    result.toSeq.map(r => Row(r.bytes, r.numFiles, r.removedFiles, 0L, r.removedBytes, 0L))
  }

  private def isPath(parts: Seq[String]): Boolean =
    parts.length == 2 && SiltCatalog.isPathIdentifier(Identifier.of(Array(parts.head), parts(1)))

  /** The source's root; only Silt (Delta) tables are cloned. */
  private def sourceTable(spark: SparkSession): Path = source match {
    case TableRef.ByName(Seq(format, _)) if Set("parquet", "iceberg").contains(format.toLowerCase) =>
      throw new UnsupportedOptionException("SHALLOW CLONE", s"SHALLOW CLONE of a $format table is not supported: " +
        s"clone a Delta table, or CONVERT TO DELTA the $format table first")
    case s => s.path(spark)
  }

  private def cloneToName(spark: SparkSession, parts: Seq[String], snapshot: io.silt.log.Snapshot, sourceName: String) = {
    val ident = Identifier.of(parts.init.toArray, parts.last)
    val tableId = SiltCatalog.tableIdentifier(ident, spark)
    val catalog = spark.sessionState.catalog
    val existing = Some(tableId).filter(catalog.tableExists).map(catalog.getTableMetadata)
    existing.filterNot(SiltCatalog.isSilt).foreach { e =>
      throw new InvalidTableOperationException(s"table ${e.identifier.unquotedString} has provider " +
        s"${e.provider.getOrElse("unknown")}: DROP it before replacing it with a clone")
    }
    if (existing.isDefined && mode == CreateMode.Create && ifNotExists) None
    else {
      if (existing.isDefined && mode == CreateMode.Create) {
        throw new InvalidTableOperationException(s"table ${tableId.unquotedString} already exists; use CREATE OR " +
          "REPLACE TABLE … SHALLOW CLONE to replace it, or IF NOT EXISTS to leave it")
      }
      if (existing.isEmpty && mode == CreateMode.Replace) throw new NoSuchTableException(ident)
      existing.foreach { e =>
        if (location.exists(l => new Path(CatalogUtils.stringToURI(l)) != new Path(e.location))) {
          throw new InvalidTableOperationException(s"table ${tableId.unquotedString} is at ${e.location}; a replacing " +
            "clone cannot move it to another LOCATION")
        }
      }
      val path = existing.map(e => new Path(e.location)).orElse(location.map(l => new Path(CatalogUtils.stringToURI(l))))
        .getOrElse(new Path(catalog.defaultTablePath(tableId)))
      val cloneMode = if (existing.isDefined) CreateMode.CreateOrReplace else CreateMode.Create
      val result = JobDescription(spark, s"SHALLOW CLONE into ${tableId.unquotedString}")(
        ShallowClone.run(spark, snapshot, sourceName, path, cloneMode, properties))
      val props = location.map(l => Map(TableCatalog.PROP_LOCATION -> l)).getOrElse(Map.empty)
      SiltCatalog.register(spark, tableId.copy(catalog = Some("spark_catalog")), path, props, existing)
      Some(result)
    }
  }
}
