package io.silt.shims

import org.apache.spark.sql.catalyst.parser.ParserInterface

/** What a parser that hands statements to Spark's own must forward on Spark 3.5: nothing beyond its interface. */
trait DelegatingParser extends ParserInterface {
  protected def delegate: ParserInterface
}
