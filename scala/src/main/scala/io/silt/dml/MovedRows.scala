package io.silt.dml

import io.silt.actions.{AddFile, RemoveFile}
import io.silt.dv.RoaringBitmapArray
import io.silt.features.RowTracking
import io.silt.log.Snapshot
import io.silt.read.{RowTrackingColumns, SiltRelation}
import io.silt.txn.RowMover
import org.apache.spark.sql.{DataFrame, Encoders, SparkSession}
import org.apache.spark.sql.functions.{broadcast, col}

/**
 * Follows rows a DML marked in a file that a concurrent rewrite (OPTIMIZE, REORG) replaced, to the
 * files it wrote, by their row ids (row tracking keeps a row's id through a rewrite): what lets the
 * DML commit on the new files instead of failing. Reads the old file's marked rows and the new
 * files' rows with those ids: two scans of those files alone.
 */
final class MovedRows(spark: SparkSession, snapshot: Snapshot) extends RowMover {
  private val tracked = RowTracking.readableColumns(snapshot.protocol, snapshot.metadata).isDefined

  override def moved(from: RemoveFile, rows: RoaringBitmapArray, onto: Seq[AddFile]): Option[Map[String, RoaringBitmapArray]] = {
    if (!tracked || rows.isEmpty || onto.isEmpty) return if (rows.isEmpty) Some(Map.empty) else None
    val old = AddFile(from.path, from.partitionValues, from.size.getOrElse(0L), 0L, dataChange = true, from.stats,
      from.tags, from.deletionVector, from.baseRowId, from.defaultRowCommitVersion)
    val wanted = spark.createDataset(rows.toArray.toSeq)(Encoders.scalaLong).toDF("wanted")
    val ids = rowsOf(Seq(old)).join(broadcast(wanted), col("index") === col("wanted"))
      .select(col("id")).where(col("id").isNotNull).as(Encoders.scalaLong).collect()
    if (ids.length != rows.cardinality) return None
    val idFrame = spark.createDataset(ids.toSeq)(Encoders.scalaLong).toDF("wanted")
    val found = rowsOf(onto).join(broadcast(idFrame), col("id") === col("wanted")).select("path", "index").collect()
    if (found.length != ids.length) return None
    val byUri = onto.map(a => snapshot.filePath(a).toUri.toString -> a.path).toMap
    Some(found.groupBy(_.getString(0)).map { case (uri, rs) =>
      byUri(uri) -> RoaringBitmapArray.of(rs.map(_.getLong(1)).toIndexedSeq: _*)
    })
  }

  /** The (path, index, id) of every live row of `files`. */
  private def rowsOf(files: Seq[AddFile]): DataFrame =
    spark.baseRelationToDataFrame(SiltRelation.forFiles(spark, snapshot, files.toIndexedSeq)).select(
      col("_metadata.file_path").as("path"), col("_metadata.row_index").as("index"),
      col(s"_metadata.${RowTrackingColumns.RowId}").as("id"))
}
