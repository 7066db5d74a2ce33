package io.silt.write

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.Metadata
import io.silt.features.Clustering
import io.silt.stats.StatsColumn

/**
 * The columns a table is clustered (or Z-ordered) by, checked as Delta Lake checks them: columns
 * of the table with min/max statistics (clustering skips files by them), none of them twice, at
 * most four for CLUSTER BY, and no clustering of a partitioned table.
 */
object ClusteringColumns {
  /** The physical paths of `columns` (logical, dotted) of a table with metadata `m`, checked for CLUSTER BY. */
  def resolve(tablePath: String, m: Metadata, columns: Seq[String]): Seq[Seq[String]] = {
    if (columns.size > Clustering.MaxColumns) {
      throw new InvalidTableOperationException(s"CLUSTER BY supports up to ${Clustering.MaxColumns} columns, not " +
        s"${columns.size} (${columns.mkString(", ")}): remove the extra columns")
    }
    if (columns.nonEmpty && m.partitionColumns.nonEmpty) {
      throw new InvalidTableOperationException(s"table $tablePath is partitioned by ${m.partitionColumns.mkString(", ")}: " +
        "clustering and partitioning cannot both be used; create the table without PARTITIONED BY to cluster it")
    }
    requireDistinct("CLUSTER BY", columns)
    columns.map(c => requireMinMax(m, c, "CLUSTER BY"))
  }

  /**
   * The physical path of column `c` of a table with metadata `m`, which must be a data column with
   * min/max statistics; `clause` names the statement in errors. Names twice are checked by the caller.
   */
  def requireMinMax(m: Metadata, c: String, clause: String): Seq[String] = {
    if (m.partitionColumns.exists(_.equalsIgnoreCase(c))) {
      throw new InvalidTableOperationException(s"$clause $c: $c is a partition column; " +
        "clustering orders rows inside partitions, so use data columns")
    }
    val physical = Clustering.physicalPath(m.schema, c).getOrElse(throw new InvalidTableOperationException(
      s"$clause $c: the table has no column $c (columns: ${m.schema.fieldNames.mkString(", ")})"))
    val indexed = StatsColumn.forTable(m.dataSchema, m)
    if (!indexed.find(_.path.map(_.toLowerCase) == physical.map(_.toLowerCase)).exists(_.hasMinMax)) {
      throw new InvalidTableOperationException(s"$clause $c: column $c has no min/max statistics (its type has " +
        "none, or it is past delta.dataSkippingNumIndexedCols / not in delta.dataSkippingStatsColumns), so " +
        "clustering on it cannot skip files")
    }
    physical
  }

  /** Refuses a column named twice (in any case). */
  def requireDistinct(clause: String, columns: Seq[String]): Unit =
    if (columns.map(_.toLowerCase).distinct.size != columns.size) {
      throw new InvalidTableOperationException(s"$clause names a column twice: ${columns.mkString(", ")}")
    }

  /** Whether physical paths name the same columns (case-insensitively, as physical names without mapping are). */
  def same(a: Seq[Seq[String]], b: Seq[Seq[String]]): Boolean =
    a.map(_.map(_.toLowerCase)) == b.map(_.map(_.toLowerCase))
}
