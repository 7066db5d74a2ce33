package io.silt.shims

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** What a parser that hands statements to Spark's own must forward on Spark 4.0 to 4.2: nothing beyond 4.0's interface. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface
}
