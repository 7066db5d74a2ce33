package io.silt.sql

import io.silt.spark.UpperCaseCharStream
import io.silt.sql.parser.{SiltSqlBaseLexer, SiltSqlBaseParser}
import org.antlr.v4.runtime._
import org.antlr.v4.runtime.atn.PredictionMode
import org.antlr.v4.runtime.misc.ParseCancellationException
import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import io.silt.config.SiltSettings
import io.silt.shims.{DelegatingParser, MergeEvolution}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, MergeIntoTable}
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * Parses Silt's statements with the shared grammar and hands everything else to Spark's
 * parser, so that Spark's own error messages stay as they are for non-Silt SQL.
 */
class SiltSqlParser(protected val delegate: ParserInterface, spark: Option[SparkSession] = None) extends DelegatingParser {
  private val builder = new SiltSqlAstBuilder

  override def parsePlan(sqlText: String): LogicalPlan =
    parseSilt(sqlText).getOrElse(withEvolution(sqlText))

  /**
   * Spark's plan of a statement that is not Silt's. A MERGE evolves the schema with `WITH SCHEMA EVOLUTION`
   * (read here where Spark's SQL lacks it: Spark 3.5 and 4.0) or `spark.silt.schema.autoMerge.enabled`.
   */
  private def withEvolution(sqlText: String): LogicalPlan = {
    val (text, asked) = sqlText match {
      case SiltSqlParser.MergeWithEvolution(merge, clause, rest) if !MergeEvolution.parsedBySpark =>
        (merge + " " * clause.length + rest, true)
      case _ => (sqlText, false)
    }
    parseSparkPlan(text) match {
      case m: MergeIntoTable if !MergeEvolution.requested(m) &&
          (asked || spark.exists(s => SiltSettings.SchemaAutoMerge(s))) => MergeEvolution.withEvolution(m, asked)
      case other => other
    }
  }

  /** The Silt command for `sqlText`, or None when the statement is not a Silt statement. */
  def parseSilt(sqlText: String): Option[LogicalPlan] = {
    val lexer = new SiltSqlBaseLexer(new UpperCaseCharStream(CharStreams.fromString(sqlText)))
    lexer.removeErrorListeners()
    val parser = new SiltSqlBaseParser(new CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.setErrorHandler(new BailErrorStrategy)
    parser.getInterpreter.setPredictionMode(PredictionMode.SLL)
    val tree = try parser.singleStatement() catch {
      case _: ParseCancellationException | _: RecognitionException => return None
    }
    Option(builder.visit(tree)).collect { case p: LogicalPlan => p }
  }

  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier = delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseQuery(sqlText: String): LogicalPlan = delegate.parseQuery(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}

object SiltSqlParser {
  // MERGE WITH SCHEMA EVOLUTION INTO …: the clause, between what comes before and after it
  private val MergeWithEvolution = "(?is)(\\s*MERGE\\s+)(WITH\\s+SCHEMA\\s+EVOLUTION)(\\s+INTO\\b.*)".r
}
