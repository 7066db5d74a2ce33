package io.silt.read

import io.silt.actions.AddFile
import io.silt.config.{DeltaSessionKeys, StatementKind, TableFileSystem}
import io.silt.features.{ColumnMapping, RowTracking, TableProperties, WriterMetadata}
import io.silt.log.{Snapshot, TableLog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.{HadoopFsRelation, LogicalRelation}

/** Builds the relation Spark scans for a Silt table at one snapshot. */
object SiltRelation {
  /** A batch scan of `relation` whose output is `output` (attributes an earlier plan already bound). */
  def scan(relation: org.apache.spark.sql.sources.BaseRelation,
      output: Seq[org.apache.spark.sql.catalyst.expressions.AttributeReference],
      catalogTable: Option[org.apache.spark.sql.catalyst.catalog.CatalogTable]): LogicalRelation =
    // built from the two-argument form, whose signature every Spark release shares, and copied
    LogicalRelation(relation, isStreaming = false).copy(output = output, catalogTable = catalogTable)

  def apply(spark: SparkSession, path: String, timeTravel: TimeTravel): HadoopFsRelation =
    forSnapshot(spark, timeTravel.snapshot(TableLog.forPath(spark, path)))

  /**
   * The data schema handed to Spark is the whole table schema: Spark then keeps partition
   * columns at their place in the schema and reads only the others from the Parquet files.
   */
  def forSnapshot(spark: SparkSession, snapshot: Snapshot): HadoopFsRelation =
    relation(spark, snapshot, new SiltFileIndex(spark, snapshot))

  /** A relation over some of the snapshot's files only (what a rewrite reads); `wholeFiles`: never split a file. */
  def forFiles(spark: SparkSession, snapshot: Snapshot, files: IndexedSeq[AddFile], wholeFiles: Boolean = false): HadoopFsRelation =
    relation(spark, snapshot, new SiltFileIndex(spark, snapshot, Some(files)), wholeFiles)

  private def relation(spark: SparkSession, snapshot: Snapshot, index: SiltFileIndex, wholeFiles: Boolean = false): HadoopFsRelation = {
    DeltaSessionKeys.refuseAt(spark.conf, Set(StatementKind.Read), s"a read of ${snapshot.tablePath}")
    TableProperties.refuseAt(snapshot.metadata.configuration, Set(StatementKind.Read), s"a read of ${snapshot.tablePath}")
    val metadata = snapshot.metadata
    // Spark sees logical names only; the format reads the files' physical names through the mapping.
    HadoopFsRelation(
      location = index,
      partitionSchema = ColumnMapping.logicalSchema(metadata.partitionSchema),
      // readers see no writer metadata (generation expressions, identity specs), as Delta Lake shows them
      dataSchema = WriterMetadata.stripped(ColumnMapping.logicalSchema(metadata.schema)),
      bucketSpec = None,
      fileFormat = new SiltParquetFileFormat(wholeFiles, () => index.scanFilesSummary, ColumnMapping.of(metadata),
        RowTracking.readableColumns(snapshot.protocol, metadata).map(RowTrackingColumns(_))),
      // the table's own file-system settings, for the tasks that read its files (and their DVs)
      options = TableFileSystem.optionsFor(spark, snapshot.tablePath) + ("path" -> snapshot.tablePath.toString))(org.apache.spark.sql.silt.ClassicApi.session(spark))
  }
}
