package io.silt.tables

import java.util.UUID

import scala.collection.mutable

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.analysis.{UnresolvedAttribute, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.silt.SparkInternals

/**
 * A statement written as SQL around slots that hold the caller's expressions and source plan: the
 * statement's shape is parsed by the session's parser (so every Spark minor builds its own DELETE,
 * UPDATE and MERGE plans), while a Column is planned as the expression it is, never printed and
 * parsed again. A printed Column is a trap: `key = 'a'` may print as `key = a`, a column reference.
 */
private[tables] final class SlottedStatement(spark: SparkSession) {
  private val nonce = UUID.randomUUID().toString.replace("-", "")
  private val expressions = mutable.ArrayBuffer.empty[Expression]
  private val sourceName = s"__silt_source_$nonce"
  private var source: Option[LogicalPlan] = None

  /** The identifier that stands for `column` in the statement's text. */
  def slot(column: Column): String = {
    expressions += SparkInternals.convertedExpression(column)
    s"`__silt_slot_${nonce}_${expressions.size - 1}`"
  }

  /** The table name that stands for `data`'s plan (a MERGE source) in the statement's text. */
  def sourceOf(data: DataFrame): String = {
    source = Some(data.queryExecution.analyzed)
    s"`$sourceName`"
  }

  /** `sql` parsed, with each slot replaced by its expression and the source by its plan. */
  def plan(sql: String): LogicalPlan = {
    val parsed = spark.sessionState.sqlParser.parsePlan(sql)
    val prefix = s"__silt_slot_${nonce}_"
    val withSource = parsed.transformUp {
      case r: UnresolvedRelation if r.multipartIdentifier == Seq(sourceName) => source.get
    }
    withSource.transformAllExpressions {
      case a: UnresolvedAttribute if a.nameParts.length == 1 && a.nameParts.head.startsWith(prefix) =>
        expressions(a.nameParts.head.stripPrefix(prefix).toInt)
    }
  }

  /** Runs the statement (commands run as they are planned); returns its result rows. */
  def run(sql: String): DataFrame = SparkInternals.dataFrame(spark, plan(sql))
}

/** SQL text for names and literals placed in a statement around slots. */
private[tables] object SqlText {
  /** A column name, each dot-separated part backquoted (`a.b` is field b of struct a, as in Delta). */
  def column(name: String): String = name.split("\\.", -1).map(identifier).mkString(".")

  def identifier(part: String): String = "`" + part.replace("`", "``") + "`"

  def string(value: String): String = "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
}
