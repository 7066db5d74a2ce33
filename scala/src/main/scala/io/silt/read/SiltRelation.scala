package io.silt.read

import io.silt.log.{AddFile, Snapshot, TableLog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.execution.datasources.HadoopFsRelation

/** Builds the relation Spark scans for a Silt table at one snapshot. */
object SiltRelation {

  /** The relation of a read by path: at a time-travel version, or following the table as it changes. */
  def apply(spark: SparkSession, path: String, timeTravel: TimeTravel): HadoopFsRelation = {
    val log = TableLog.forPath(spark, path)
    val snapshot = timeTravel.snapshot(log)
    if (timeTravel == TimeTravel.Latest) following(spark, log, snapshot) else forSnapshot(spark, snapshot)
  }

  /**
   * The data schema handed to Spark is the whole table schema: Spark then keeps partition
   * columns at their place in the schema and reads only the others from the Parquet files.
   */
  def forSnapshot(spark: SparkSession, snapshot: Snapshot): HadoopFsRelation =
    relation(spark, snapshot, new SiltFileIndex(spark, snapshot))

  /** The relation of a query of the table as it is: each run lists the latest snapshot of `log` (schema: `snapshot`'s). */
  def following(spark: SparkSession, log: TableLog, snapshot: Snapshot): HadoopFsRelation =
    relation(spark, snapshot, new SiltFileIndex(spark, snapshot, None, Some(log)))

  /** A relation over some of the snapshot's files only (what a rewrite reads); `wholeFiles`: never split a file. */
  def forFiles(spark: SparkSession, snapshot: Snapshot, files: IndexedSeq[AddFile], wholeFiles: Boolean = false): HadoopFsRelation =
    relation(spark, snapshot, new SiltFileIndex(spark, snapshot, Some(files)), wholeFiles)

  private def relation(spark: SparkSession, snapshot: Snapshot, index: SiltFileIndex, wholeFiles: Boolean = false): HadoopFsRelation = {
    val metadata = snapshot.metadata
    HadoopFsRelation(
      location = index,
      partitionSchema = metadata.partitionSchema,
      dataSchema = metadata.schema,
      bucketSpec = None,
      fileFormat = new SiltParquetFileFormat(wholeFiles, () => index.scanFiles),
      options = Map("path" -> snapshot.tablePath.toString))(spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession])
  }
}
