package io.silt.shims

import org.apache.spark.sql.connector.catalog.{Column, TableCatalogCapability, TableChange}
import org.apache.spark.sql.connector.expressions.{ClusterByTransform, Transform}

/** What Spark 4's catalog API hands a catalog of a table's definition: CLUSTER BY and identity columns. */
object CatalogDefinitions {
  /** The capabilities beyond Spark 3.5's a catalog declares to be handed identity columns. */
  val identityCapabilities: Seq[TableCatalogCapability] = Seq(TableCatalogCapability.SUPPORTS_CREATE_TABLE_WITH_IDENTITY_COLUMNS)

  /** The columns of a new table's CLUSTER BY transform (dotted names). */
  def clusteringOf(t: Transform): Option[Seq[String]] = t match {
    case ClusterByTransform(columns) => Some(columns.map(_.fieldNames.mkString(".")))
    case _ => None
  }

  /** The columns of an ALTER TABLE … CLUSTER BY change (dotted names). */
  def clusteringOf(c: TableChange): Option[Seq[String]] = c match {
    case c: TableChange.ClusterBy => Some(c.clusteringColumns.toSeq.map(_.fieldNames.mkString(".")))
    case _ => None
  }

  /** A column's identity: (start, step, whether an explicit value may be inserted). */
  def identityOf(c: Column): Option[(Long, Long, Boolean)] =
    Option(c.identityColumnSpec).map(i => (i.getStart, i.getStep, i.isAllowExplicitInsert))
}
