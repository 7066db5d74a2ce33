package io.silt.shims

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

/** What a parser that hands statements to Spark's own must forward on Spark 4.0 to 4.2: its routine parameters. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface

  /** A statement that is not Silt's, as Spark's parser reads it (its SQL has CLUSTER BY and identity columns). */
  protected def parseSparkPlan(sqlText: String): LogicalPlan = delegate.parsePlan(sqlText)

  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
