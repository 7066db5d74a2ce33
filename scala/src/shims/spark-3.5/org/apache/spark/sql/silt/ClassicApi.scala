package org.apache.spark.sql.silt

import org.apache.spark.sql.{Column, DataFrame, Dataset, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** The session, Column and plan plumbing on Spark 3.5, whose one SparkSession is Spark 4's classic one. */
object ClassicApi {
  type Session = SparkSession

  def session(spark: SparkSession): Session = spark
  def column(e: Expression): Column = new Column(e)
  def expression(c: Column): Expression = c.expr
  def convertedExpression(c: Column): Expression = c.expr
  def dataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame = Dataset.ofRows(spark, plan)
}
