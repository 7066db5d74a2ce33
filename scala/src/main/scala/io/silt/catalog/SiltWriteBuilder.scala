package io.silt.catalog

import io.silt.dml.ReplaceMatchingRows
import io.silt.errors.InvalidTableOperationException
import io.silt.spark.Identifiers
import io.silt.log.TableLog
import io.silt.write.{CatalogEntries, WriteOptions}
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.{DataFrame, SaveMode, SparkSession}
import org.apache.spark.sql.catalyst.catalog.CatalogTable
import org.apache.spark.sql.catalyst.expressions.Literal
import org.apache.spark.sql.connector.write.{SupportsDynamicOverwrite, SupportsOverwrite, SupportsTruncate, V1Write, WriteBuilder}
import org.apache.spark.sql.sources._

/**
 * INSERT INTO / INSERT OVERWRITE (static, by filter, or dynamic) on a catalog or path table,
 * through Spark's V1 write fallback; a catalog table's entry follows the columns the write added. Spark has already decided between static and dynamic
 * overwrite (from the statement, the write's options and the session); that choice stands.
 */
final class SiltWriteBuilder(spark: SparkSession, path: Path, options: Map[String, String], catalogTable: Option[CatalogTable])
    extends WriteBuilder with SupportsOverwrite with SupportsTruncate with SupportsDynamicOverwrite {
  private var overwrite = false
  private var dynamic = false
  private var replaceWhere: Option[String] = None

  override def truncate(): WriteBuilder = { overwrite = true; replaceWhere = None; this }

  override def overwriteDynamicPartitions(): WriteBuilder = { overwrite = true; dynamic = true; this }

  override def overwrite(filters: Array[Filter]): WriteBuilder = {
    overwrite = true
    val predicates = filters.filterNot(_.isInstanceOf[AlwaysTrue]).map(SiltWriteBuilder.toSql)
    replaceWhere = if (predicates.isEmpty) None else Some(predicates.mkString(" AND "))
    this
  }

  override def build(): V1Write = {
    val mode = if (overwrite) SaveMode.Overwrite else SaveMode.Append
    // validated now, so that a bad option fails before any data is written
    val parsed = WriteOptions.fromOptions(spark, mode, options, None)
    if (replaceWhere.isDefined && parsed.replaceWhere.isDefined) {
      throw new InvalidTableOperationException(s"the statement overwrites where ${replaceWhere.get} and option " +
        s"replaceWhere says ${parsed.replaceWhere.get}: give the rows to replace once")
    }
    val opts = if (!overwrite) parsed
      else parsed.copy(replaceWhere = replaceWhere.orElse(parsed.replaceWhere), dynamicPartitionOverwrite = dynamic ||
        (parsed.dynamicPartitionOverwrite && replaceWhere.isEmpty))
    new V1Write {
      override def toInsertableRelation: InsertableRelation = new InsertableRelation {
        override def insert(data: DataFrame, ignored: Boolean): Unit = {
          ReplaceMatchingRows.write(spark, path, data, opts)
          // the write may have added columns (mergeSchema, the session's autoMerge)
          catalogTable.foreach(CatalogEntries.sync(spark, _, TableLog.forPath(spark, path.toString).latest()))
        }
      }
    }
  }
}

object SiltWriteBuilder {
  /** A data source filter as SQL, for static-partition INSERT OVERWRITE. */
  def toSql(f: Filter): String = f match {
    case EqualTo(a, v) => s"${quote(a)} = ${lit(v)}"
    case EqualNullSafe(a, v) => s"${quote(a)} <=> ${lit(v)}"
    case In(a, vs) => s"${quote(a)} IN (${vs.map(lit).mkString(", ")})"
    case IsNull(a) => s"${quote(a)} IS NULL"
    case IsNotNull(a) => s"${quote(a)} IS NOT NULL"
    case GreaterThan(a, v) => s"${quote(a)} > ${lit(v)}"
    case GreaterThanOrEqual(a, v) => s"${quote(a)} >= ${lit(v)}"
    case LessThan(a, v) => s"${quote(a)} < ${lit(v)}"
    case LessThanOrEqual(a, v) => s"${quote(a)} <= ${lit(v)}"
    case And(l, r) => s"(${toSql(l)}) AND (${toSql(r)})"
    case Or(l, r) => s"(${toSql(l)}) OR (${toSql(r)})"
    case Not(c) => s"NOT (${toSql(c)})"
    case other => throw new InvalidTableOperationException(s"cannot overwrite by filter $other")
  }

  private def quote(attr: String): String = Identifiers.quote(attr.split('.').toSeq)
  private def lit(v: Any): String = Literal(v).sql
}
