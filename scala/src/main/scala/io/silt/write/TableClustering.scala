package io.silt.write

import io.silt.errors.InvalidTableOperationException
import io.silt.actions.DomainMetadata
import io.silt.features.Clustering
import io.silt.txn.{Operation, OptimisticTransaction}
import org.apache.hadoop.fs.Path
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * The clustering a write or a table definition gives a table: the `delta.clustering` domain its
 * commit carries (and the protocol moved up to the `clustering` feature), if any.
 */
object TableClustering extends Logging {
  /**
   * `requested`: the clustering columns asked for (CLUSTER BY, `DataFrameWriter.clusterBy`);
   * `defines`: the commit creates the table or gives it a new definition (REPLACE, overwriteSchema),
   * after `txn.updateMetadata`. A write to an existing table must ask for its clustering or none.
   * A new definition without CLUSTER BY keeps the clustering columns if all of them still exist and
   * the table is not now partitioned (else it is clustered by none, as in Delta Lake, with a warning);
   * a REPLACE TABLE (`replacing`) without one leaves the table clustered by none.
   */
  def forCommit(txn: OptimisticTransaction, requested: Option[Seq[String]], defines: Boolean,
      replacing: Boolean = false): Seq[DomainMetadata] = {
    val path = txn.log.tablePath.toString
    // Lazy: the domains need the snapshot's file-level state, which a write without clustering never reads.
    lazy val current = if (!txn.tableExists) None else txn.readSnapshot.flatMap(s => Clustering.physicalColumns(s.domains))
    def clusteredBy(physical: Seq[Seq[String]]): Seq[DomainMetadata] = {
      TableWriter.upgradeProtocol(txn, txn.metadata, clustered = true)
      Seq(Clustering.domain(physical))
    }
    requested match {
      case Some(columns) if defines => clusteredBy(ClusteringColumns.resolve(path, txn.metadata, columns))
      case Some(columns) =>
        val physical = ClusteringColumns.resolve(path, txn.metadata, columns)
        if (!current.exists(ClusteringColumns.same(_, physical))) {
          val now = current.map(c => s"clustered by (${Clustering.logicalNames(txn.metadata.schema, c).mkString(", ")})")
            .getOrElse("not clustered")
          throw new InvalidTableOperationException(s"table $path is $now, not by (${columns.mkString(", ")}): a " +
            "write's clusterBy must match the table's; change it with ALTER TABLE … CLUSTER BY (…)")
        }
        Nil
      case None if defines && current.isDefined =>
        val physical = current.get
        val previous = txn.readSnapshot.get.metadata.schema
        val names = Clustering.logicalNames(previous, physical)
        val missing = names.filter(Clustering.physicalPath(txn.metadata.schema, _).isEmpty)
        if (replacing) clusteredBy(Nil)
        else if (missing.nonEmpty || txn.metadata.partitionColumns.nonEmpty) {
          // As Delta Lake does: the new definition cannot keep the clustering, so the table is clustered by none.
          val why = if (missing.nonEmpty) s"its columns ${missing.mkString(", ")} are gone"
            else s"it is now partitioned by ${txn.metadata.partitionColumns.mkString(", ")}"
          logWarning(s"Silt: $path was clustered by (${names.mkString(", ")}); $why, so it is clustered by none " +
            "from this commit (ALTER TABLE … CLUSTER BY sets new clustering columns)")
          clusteredBy(Nil)
        } else clusteredBy(ClusteringColumns.resolve(path, txn.metadata, names))
      case _ => Nil
    }
  }

  /**
   * ALTER TABLE … CLUSTER BY (columns) or CLUSTER BY NONE (no columns): one commit of the new
   * clustering domain; no data is rewritten (OPTIMIZE clusters by the new columns from then on).
   */
  def alter(spark: SparkSession, tablePath: Path, columns: Seq[String]): Long = {
    val txn = ExistingTable.begin(spark, tablePath)
    val physical = ClusteringColumns.resolve(tablePath.toString, txn.metadata, columns)
    val old = txn.readSnapshot.flatMap(s => Clustering.physicalColumns(s.domains))
      .map(Clustering.logicalNames(txn.metadata.schema, _)).getOrElse(Nil)
    TableWriter.upgradeProtocol(txn, txn.metadata, clustered = true)
    txn.readFiles(Nil)
    txn.commit(Seq(Clustering.domain(physical)), Operation.ClusterBy(old, columns))
  }
}
