package io.silt.tables

import scala.annotation.varargs

import io.silt.spark.SqlText
import org.apache.spark.sql.DataFrame

/** OPTIMIZE, as delta-spark's builder: `where` then `executeCompaction` or `executeZOrderBy`. */
class DeltaOptimizeBuilder private[tables] (table: DeltaTable, partitionFilter: Option[String] = None) {

  /** Limits OPTIMIZE to the partitions matching a SQL condition on partition columns. */
  def where(partitionFilter: String): DeltaOptimizeBuilder = new DeltaOptimizeBuilder(table, Some(partitionFilter))

  /** Compacts small files (clusters what is not clustered yet on a clustered table); returns the metrics row. */
  def executeCompaction(): DataFrame = run("")

  /** Rewrites the selected files clustered along a Z-order curve of `columns`; returns the metrics row. */
  @varargs
  def executeZOrderBy(columns: String*): DataFrame =
    run(columns.map(SqlText.column).mkString(" ZORDER BY (", ", ", ")"))

  private def run(suffix: String): DataFrame =
    table.sql(s"OPTIMIZE ${table.ref.statementSql}" + partitionFilter.fold("")(p => s" WHERE $p") + suffix)
}
