package io.silt.sql

import io.silt.catalog.SiltCatalog
import io.silt.errors.{InvalidTableOperationException, NotADeltaTableException}
import io.silt.write.CatalogEntries
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.connector.catalog.Identifier

/** A table named in a Silt statement: a quoted path, silt.`/path`, or a catalog name. */
sealed trait TableRef {
  /** The table's root directory. */
  def path(spark: SparkSession): Path
  def display: String
}

object TableRef {
  final case class ByPath(raw: String) extends TableRef {
    def path(spark: SparkSession): Path = new Path(raw)
    def display: String = s"'$raw'"
  }

  final case class ByName(parts: Seq[String]) extends TableRef {
    def display: String = parts.mkString(".")

    def path(spark: SparkSession): Path = {
      if (parts.length == 2 && SiltCatalog.isPathIdentifier(Identifier.of(Array(parts.head), parts(1)))) {
        return new Path(parts(1))
      }
      val id = parts match {
        case Seq(t) => TableIdentifier(t)
        case Seq(db, t) => TableIdentifier(t, Some(db))
        case Seq(cat, db, t) => TableIdentifier(t, Some(db), Some(cat))
        case _ => throw new InvalidTableOperationException(s"$display is not a valid table name")
      }
      val catalog = spark.sessionState.catalog
      if (!catalog.tableExists(id)) {
        throw new NotADeltaTableException(display, "no such table in the catalog")
      }
      val entry = catalog.getTableMetadata(id)
      if (!SiltCatalog.isSilt(entry)) {
        throw new NotADeltaTableException(display, s"its provider is ${entry.provider.getOrElse("unknown")}, not silt")
      }
      CatalogEntries.remember(entry)
      new Path(entry.location)
    }
  }
}
