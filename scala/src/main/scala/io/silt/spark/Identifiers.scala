package io.silt.spark

import org.apache.spark.sql.Column
import org.apache.spark.sql.functions.col

/** The one quoting of column names for Spark SQL text and `col(...)`, so that any name (dots, backquotes) is one column. */
object Identifiers {
  /** `name` as one backquoted identifier. */
  def quote(name: String): String = "`" + name.replace("`", "``") + "`"

  /** A nested field path, each part quoted. */
  def quote(parts: Seq[String]): String = parts.map(quote).mkString(".")

  /** The top-level column `name`, however it is spelt. */
  def column(name: String): Column = col(quote(name))
}
