package io.silt.read

import io.silt.spark.Identifiers
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{DataFrame, Row, SQLContext}
import org.apache.spark.sql.sources.{BaseRelation, PrunedScan}
import org.apache.spark.sql.types.StructType

/**
 * A change-feed read as the relation `spark.read.format("silt").option("readChangeFeed", "true")`
 * returns: the rows of [[ChangeFeed.changes]], with the columns a query needs.
 */
final class ChangeFeedRelation(override val sqlContext: SQLContext, changes: DataFrame) extends BaseRelation with PrunedScan {
  override def schema: StructType = changes.schema

  // The rows are handed over in Spark's internal form, not converted to Rows and back.
  override def needConversion: Boolean = false

  override def buildScan(requiredColumns: Array[String]): RDD[Row] =
    changes.select(requiredColumns.toSeq.map(Identifiers.column): _*).queryExecution.toRdd.asInstanceOf[RDD[Row]]
}
