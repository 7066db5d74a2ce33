package io.silt.write

import io.silt.errors.NotADeltaTableException
import io.silt.features.TableFeatures
import io.silt.log.TableLog
import io.silt.txn.OptimisticTransaction
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.SparkSession

/** The start of every statement that changes a table that must already exist (ALTER TABLE, TRUNCATE). */
private[write] object ExistingTable {
  /** A transaction on the table at `tablePath`; refused when there is none, or when Silt may not write it. */
  def begin(spark: SparkSession, tablePath: Path): OptimisticTransaction = {
    val txn = OptimisticTransaction.start(spark, TableLog.forPath(spark, tablePath.toString))
    if (!txn.tableExists) throw new NotADeltaTableException(tablePath.toString)
    TableFeatures.checkWritable(tablePath.toString, txn.protocol, txn.metadata)
    txn
  }
}
