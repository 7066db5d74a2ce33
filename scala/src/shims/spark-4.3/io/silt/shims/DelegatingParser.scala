package io.silt.shims

import org.apache.spark.sql.catalyst.parser.{ParserInterface, SqlStatementSplitResult}
import org.apache.spark.sql.types.StructType

/** What a parser that hands statements to Spark's own must forward on Spark 4.3: routine parameters, script splitting. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface

  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}
