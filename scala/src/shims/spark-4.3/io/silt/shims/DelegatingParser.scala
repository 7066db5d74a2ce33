package io.silt.shims

import org.apache.spark.sql.catalyst.parser.{ParserInterface, SqlStatementSplitResult}

/** What a parser that hands statements to Spark's own must forward on Spark 4.3: its script splitting. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface

  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}
