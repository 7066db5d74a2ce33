package io.silt.write

import io.silt.actions.{AddCDCFile, TablePaths}
import io.silt.features.ChangeDataFeed
import io.silt.spark.Identifiers
import io.silt.txn.OptimisticTransaction
import org.apache.spark.sql.{DataFrame, SparkSession}

/** Writes the change rows of a commit to the table's change data files (`_change_data/`), partitioned as the table is. */
object ChangeDataWriter {
  /** `rows`: the table's columns (under the metadata the transaction commits) and `_change_type`. */
  def write(spark: SparkSession, txn: OptimisticTransaction, rows: DataFrame): Seq[AddCDCFile] = {
    val columns = txn.metadata.schema.fieldNames.toSeq :+ ChangeDataFeed.ChangeTypeColumn
    // Rows already in the table or about to be written to it: their constraints are checked there.
    DataFileWriter.writeFiles(spark, txn.log.tablePath, rows.select(columns.map(Identifiers.column): _*), txn.metadata,
      Map.empty, enforceConstraints = false, folder = ChangeDataFeed.Folder, collectStats = false).map { case (f, _) =>
      AddCDCFile(TablePaths.relativeEncoded(f.relativePath), f.partitionValues, f.size)
    }
  }
}
