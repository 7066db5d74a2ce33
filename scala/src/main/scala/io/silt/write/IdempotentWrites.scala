package io.silt.write

import io.silt.config.SiltSettings
import io.silt.actions.SetTransaction
import io.silt.features.TableProperties
import io.silt.txn.OptimisticTransaction
import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Idempotent writes (txnAppId / txnVersion), the one place that decides them for every write,
 * replace and DML statement: a version not above the one the table recorded for its application
 * (unless that expired: `delta.setTransactionRetentionDuration`) skips the operation; otherwise the
 * transaction commits a `txn` action with whatever it commits.
 * The session's txnVersion names one operation, so it is cleared once that ran or was skipped
 * (a failed operation keeps it, so that its retry is still recognised); set under Delta Lake's
 * name it is kept, as Delta Lake keeps it, unless txnVersion.autoReset.enabled is set.
 */
object IdempotentWrites extends Logging {

  /** Runs `operation` on `txn` unless `t` was committed already, then gives `skipped`. */
  def run[A](spark: SparkSession, txn: OptimisticTransaction, t: Option[AppTransaction])(skipped: => A)(operation: => A): A = {
    // A version recorded longer ago than the table's delta.setTransactionRetentionDuration has expired, as in Delta Lake.
    val retention = txn.readSnapshot.flatMap(s => TableProperties(s.metadata.configuration).setTransactionRetentionMs)
    val now = System.currentTimeMillis()
    def expired(p: SetTransaction) = retention.exists(r => p.lastUpdated.exists(_ <= now - r))
    val done = t.flatMap(a => txn.readSnapshot.flatMap(_.transactions.get(a.appId))
      .filter(p => p.version >= a.version && !expired(p)))
    val result = done match {
      case Some(previous) =>
        logWarning(s"Silt: skipped an operation on ${txn.log.tablePath}: application '${previous.appId}' already " +
          s"committed transaction version ${previous.version} (this one's txnVersion is ${t.get.version})")
        skipped
      case None =>
        t.foreach(a => txn.recordAppTransaction(SetTransaction(a.appId, a.version, Some(now))))
        operation
    }
    if (t.exists(_.fromSession)) SiltSettings.TxnVersion.set(spark.conf).foreach { case (key, _) =>
      // Silt's key is cleared by default; Delta Lake's is kept, as Delta Lake keeps it, unless autoReset says so.
      val reset = SiltSettings.TxnVersionAutoReset.explicit(spark.conf).getOrElse(key == SiltSettings.TxnVersion.key)
      if (reset) spark.conf.unset(key)
    }
    result
  }
}
