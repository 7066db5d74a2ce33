package io.silt.spark

import java.util.UUID

import scala.collection.mutable
import scala.util.Try

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
final class SlottedStatement private (spark: SparkSession, nonce: String) {
  private val expressions = mutable.ArrayBuffer.empty[Expression]

  def this(spark: SparkSession) = this(spark, UUID.randomUUID().toString.replace("-", ""))
  private val sourceName = s"__silt_source_$nonce"
  private var source: Option[LogicalPlan] = None

  /** The identifier that stands for `column` in the statement's text. */
  def slot(column: Column): String = {
    expressions += SparkInternals.convertedExpression(column)
    s"`__silt_slot_${nonce}_${expressions.size - 1}`"
  }

  /** Fills the next slot with an expression already converted (a Spark Connect client's). */
  private def fill(expression: Expression): Unit = expressions += expression

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
        val index = a.nameParts.head.stripPrefix(prefix)
        expressions.lift(Try(index.toInt).getOrElse(-1)).getOrElse(throw new IllegalArgumentException(
          s"slot $index of a statement has no expression (${expressions.size} given)"))
    }
  }

  /** Runs the statement (commands run as they are planned); returns its result rows. */
  def run(sql: String): DataFrame = SparkInternals.dataFrame(spark, plan(sql))
}

object SlottedStatement {
  private val Nonce = "[0-9a-f]{8,64}".r

  /**
   * A statement whose text a client wrote around slots `__silt_slot_<nonce>_<i>` (Silt's Python API
   * over Spark Connect), with the expressions of slots 0, 1, ... in order.
   */
  def filled(spark: SparkSession, nonce: String, slots: Seq[Expression]): SlottedStatement = {
    if (!Nonce.pattern.matcher(nonce).matches()) throw new IllegalArgumentException(s"a statement's slot nonce must be hex, not '$nonce'")
    val statement = new SlottedStatement(spark, nonce)
    slots.foreach(statement.fill)
    statement
  }
}

/** SQL text for names and literals placed in a statement around slots. */
object SqlText {
  /** A column name, each dot-separated part backquoted (`a.b` is field b of struct a, as in Delta). */
  def column(name: String): String = name.split("\\.", -1).map(identifier).mkString(".")

  def identifier(part: String): String = "`" + part.replace("`", "``") + "`"

  def string(value: String): String = "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
}
