package io.silt.shims

import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** What a parser that hands statements to Spark's own adds on Spark 3.5: the definition clauses of Spark 4's SQL. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface

  /** A statement that is not Silt's, as Spark's parser reads it, with CLUSTER BY and identity columns read around it. */
  protected def parseSparkPlan(sqlText: String): LogicalPlan =
    DefinitionClauses.parse(sqlText, delegate).getOrElse(delegate.parsePlan(sqlText))
}
