package io.silt.tables

import io.silt.config.TableFileSystem
import io.silt.spark.SqlText
import org.apache.spark.sql.SparkSession

/** How a table of the JVM API is named in the statements it runs: by path, or by catalog name. */
private[tables] sealed trait TableName {
  /** The table's folder, for a path table. */
  def path: Option[String]
  /** The table in DELETE, UPDATE, MERGE and ALTER TABLE (Spark's statements). */
  def dmlSql: String
  /** The table in Silt's statements (VACUUM, DESCRIBE HISTORY, OPTIMIZE, …). */
  def statementSql: String
  /** The table for `spark.table`. */
  def sql: String = dmlSql
  /** Hadoop file-system settings of this table alone (`forPath`'s hadoopConf). */
  def fileSystemOptions: Map[String, String] = Map.empty

  /** Runs `body` (statements on this table) with the table's file-system settings applied to it. */
  def inScope[T](spark: SparkSession)(body: => T): T = path match {
    case Some(p) if fileSystemOptions.nonEmpty => TableFileSystem.withOptions(spark, p, fileSystemOptions)(body)
    case _ => body
  }
}

private[tables] object TableName {
  final case class Path(raw: String, override val fileSystemOptions: Map[String, String] = Map.empty) extends TableName {
    def path: Option[String] = Some(raw)
    def dmlSql: String = "silt." + SqlText.identifier(raw)
    def statementSql: String = SqlText.string(raw)
  }

  final case class Name(name: String) extends TableName {
    def path: Option[String] = None
    def dmlSql: String = name
    def statementSql: String = name
  }

  private val PathIdentifier = """(?i)(?:delta|silt)\.`((?:[^`]|``)*)`""".r

  /** A catalog name, or delta.`/path` / silt.`/path` (a path table). */
  def named(name: String): TableName = name match {
    case PathIdentifier(p) => Path(p.replace("``", "`"))
    case other => Name(other)
  }

  /** A clone's target: a folder when absolute or with a scheme, else as [[named]]. */
  def parse(target: String): TableName =
    if (target.startsWith("/") || target.contains("://") || target.startsWith("file:")) Path(target) else named(target)
}
