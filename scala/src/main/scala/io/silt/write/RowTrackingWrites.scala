package io.silt.write

import io.silt.actions.{Metadata, Protocol}
import io.silt.features.{MaterializedRowColumns, RowTracking}
import io.silt.read.RowTrackingColumns
import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.{col, when}

/**
 * How rewrites keep row ids: a row copied into a new file (OPTIMIZE, a copy-on-write DML) keeps
 * its id and commit version in the table's hidden columns; a new version of an updated row keeps
 * its id and takes the commit's version; an inserted row takes fresh ones (both left null).
 */
object RowTrackingWrites {
  /** The hidden columns rewrites of this table fill: those of a table with row tracking on. */
  def columns(p: Protocol, m: Metadata): Option[MaterializedRowColumns] = RowTracking.readableColumns(p, m)

  /** A scan's rows with their ids and commit versions in the hidden columns, for a rewrite that copies them unchanged. */
  def copied(scan: DataFrame, p: Protocol, m: Metadata): DataFrame = columns(p, m).fold(scan) { c =>
    scan.select(col("*"), col(s"_metadata.${RowTrackingColumns.RowId}").as(c.rowId),
      col(s"_metadata.${RowTrackingColumns.RowCommitVersion}").as(c.rowCommitVersion))
  }

  /**
   * The hidden columns of rows carrying their target row's id and commit version (`rowId`,
   * `rowCommitVersion`; null for a new row), where `copied` tells a row copied unchanged.
   */
  def kept(c: MaterializedRowColumns, rowId: Column, rowCommitVersion: Column, copied: Column): Seq[Column] =
    Seq(rowId.as(c.rowId), when(copied, rowCommitVersion).as(c.rowCommitVersion))

  /** The hidden column names of `m`, which statistics leave out. */
  def hiddenNames(m: Metadata): Set[String] = RowTracking.materializedColumns(m).toSeq.flatMap(_.names).toSet
}
