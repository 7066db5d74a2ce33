package io.silt.shims

import scala.util.Try

import org.apache.spark.sql.connector.catalog.{Column, TableCatalogCapability, TableChange}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.types.{Metadata, MetadataBuilder, StructField}

/**
 * A table's definition as Spark 3.5's catalog API hands it. Its SQL has no CLUSTER BY and no identity
 * columns: [[DefinitionClauses]] reads them and hands them on as the forms below.
 */
object CatalogDefinitions {
  val identityCapabilities: Seq[TableCatalogCapability] = Nil

  // Only DefinitionClauses sets it; the catalog's schema of a table never carries a column's metadata on.
  private val IdentityKey = "silt.parsedIdentity"

  /** The columns of a new table's CLUSTER BY transform (dotted names). */
  def clusteringOf(t: Transform): Option[Seq[String]] = t match {
    case ClusterByTransform(columns) => Some(columns)
    case _ => None
  }

  /** The columns of an ALTER TABLE … CLUSTER BY change (dotted names; none for CLUSTER BY NONE). */
  def clusteringOf(c: TableChange): Option[Seq[String]] = c match {
    case ClusterByChange(columns) => Some(columns)
    case _ => None
  }

  /** A column's identity: (start, step, whether an explicit value may be inserted). */
  def identityOf(c: Column): Option[(Long, Long, Boolean)] =
    Option(c.metadataInJSON).flatMap(json => Try(Metadata.fromJson(json)).toOption).filter(_.contains(IdentityKey))
      .map(_.getString(IdentityKey).split(',')).map(a => (a(0).toLong, a(1).toLong, a(2).toBoolean))

  /** `f` marked as an identity column of a table's definition. */
  private[shims] def withIdentity(f: StructField, start: Long, step: Long, allowExplicitInsert: Boolean): StructField =
    f.copy(metadata = new MetadataBuilder().withMetadata(f.metadata).putString(IdentityKey,
      s"$start,$step,$allowExplicitInsert").build())
}
