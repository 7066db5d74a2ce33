package io.silt.shims

import org.apache.spark.sql.connector.catalog.{Column, TableCatalogCapability, TableChange}
import org.apache.spark.sql.connector.expressions.Transform

/** A table's definition as Spark 3.5's catalog API hands it: its SQL has no CLUSTER BY and no identity columns. */
object CatalogDefinitions {
  val identityCapabilities: Seq[TableCatalogCapability] = Nil

  def clusteringOf(t: Transform): Option[Seq[String]] = None

  def clusteringOf(c: TableChange): Option[Seq[String]] = None

  def identityOf(c: Column): Option[(Long, Long, Boolean)] = None
}
