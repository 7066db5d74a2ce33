package org.apache.spark.sql.silt

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.{ColumnNodeToExpressionConverter, Dataset, ExpressionUtils}

/** The session, Column and plan plumbing of Spark 4's classic API (its `classic` package). */
object ClassicApi {
  type Session = org.apache.spark.sql.classic.SparkSession

  def session(spark: SparkSession): Session = spark.asInstanceOf[Session]
  def column(e: Expression): Column = ExpressionUtils.column(e)
  def expression(c: Column): Expression = ExpressionUtils.expression(c)
  def convertedExpression(c: Column): Expression = ColumnNodeToExpressionConverter(c.node)
  def dataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame = Dataset.ofRows(session(spark), plan)
}
