package io.silt.catalog

import io.silt.errors.InvalidTableOperationException
import io.silt.shims.CatalogDefinitions
import io.silt.write.{AddColumns, ChangeColumn, RenameDropColumns, TableClustering, TableWriter}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.catalog.TableChange._
import org.apache.spark.sql.types.StructType

/** What one kind of ALTER TABLE does to a Silt table, and which lists of Spark's changes it takes. */
private[catalog] sealed abstract class AlterKind {
  /** Whether `changes` (of a table whose schema is `schema`) are this kind's. */
  def accepts(changes: Seq[TableChange], schema: StructType): Boolean
  /** Commits the change; the new schema when the columns changed (the catalog entry follows it). */
  def run(spark: SparkSession, path: Path, changes: Seq[TableChange]): Option[StructType]
}

/**
 * The ALTER TABLE statements Silt runs, each one kind of change list (Spark hands the catalog a
 * list of `TableChange`s), tried in order; the first that accepts the list runs it. A list no kind
 * accepts is refused, naming the change.
 */
private[catalog] object AlterTableChanges {
  private def all[T <: TableChange](changes: Seq[TableChange], c: Class[T]) = changes.nonEmpty && changes.forall(c.isInstance)
  private def as[T](changes: Seq[TableChange]) = changes.map(_.asInstanceOf[T])

  private object Cluster extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = cs.size == 1 && CatalogDefinitions.clusteringOf(cs.head).isDefined
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) = {
      TableClustering.alter(spark, path, CatalogDefinitions.clusteringOf(cs.head).get)
      None
    }
  }
  private object Add extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = all(cs, classOf[AddColumn])
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) = Some(AddColumns.run(spark, path, as[AddColumn](cs)))
  }
  private object Drop extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = all(cs, classOf[DeleteColumn])
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) = Some(RenameDropColumns.drop(spark, path, as[DeleteColumn](cs)))
  }
  private object Rename extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = cs.size == 1 && cs.head.isInstanceOf[RenameColumn]
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) =
      Some(RenameDropColumns.rename(spark, path, cs.head.asInstanceOf[RenameColumn]))
  }
  private object Replace extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = SiltCatalog.isReplaceColumns(s, cs)
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) =
      Some(RenameDropColumns.replace(spark, path, cs.collect { case a: AddColumn => a }))
  }
  /** COMMENT, NULL / NOT NULL, position, TYPE and DEFAULT of one column. */
  private object Change extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = all(cs, classOf[ColumnChange]) &&
      !cs.exists(c => c.isInstanceOf[AddColumn] || c.isInstanceOf[DeleteColumn] || c.isInstanceOf[RenameColumn])
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) = Some(ChangeColumn.run(spark, path, as[ColumnChange](cs)))
  }
  /** SET / UNSET TBLPROPERTIES (the catalog-reserved ones stay with the catalog). */
  private object Properties extends AlterKind {
    def accepts(cs: Seq[TableChange], s: StructType) = cs.nonEmpty && cs.forall(c => c.isInstanceOf[SetProperty] || c.isInstanceOf[RemoveProperty])
    def run(spark: SparkSession, path: Path, cs: Seq[TableChange]) = {
      val set = cs.collect { case p: SetProperty => p.property -> p.value }.toMap
      val unset = cs.collect { case p: RemoveProperty => p.property }
      TableWriter.alterProperties(spark, path, set.filter { case (k, _) => !SiltCatalog.ReservedProperties.contains(k) },
        unset.filterNot(SiltCatalog.ReservedProperties.contains))
      None
    }
  }

  private val Kinds: Seq[AlterKind] = Seq(Cluster, Add, Drop, Rename, Replace, Change, Properties)

  /** Runs `changes` on the table at `path` (named `name`); the new schema when the columns changed. */
  def run(spark: SparkSession, name: String, path: Path, schema: StructType, changes: Seq[TableChange]): Option[StructType] =
    if (changes.isEmpty) None // DROP COLUMN IF EXISTS of a column that is not there: nothing to commit
    else Kinds.find(_.accepts(changes, schema)).map(_.run(spark, path, changes)).getOrElse {
      val columns = changes.filter(_.isInstanceOf[ColumnChange])
      val why = if (columns.exists(c => c.isInstanceOf[AddColumn] || c.isInstanceOf[DeleteColumn] || c.isInstanceOf[RenameColumn]))
        "add, drop or rename columns in a statement of their own"
      else changes.filterNot(c => c.isInstanceOf[SetProperty] || c.isInstanceOf[RemoveProperty] || columns.contains(c))
        .headOption.map(c => s"${c.getClass.getSimpleName} is not supported on Silt tables yet")
        .getOrElse("change columns and properties in statements of their own")
      throw new InvalidTableOperationException(s"ALTER TABLE $name: $why")
    }
}
