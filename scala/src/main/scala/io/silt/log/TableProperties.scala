package io.silt.log

import io.silt.errors.InvalidTableOperationException
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

/** Typed reads of the Delta table properties Silt honours, with their Delta defaults. */
final case class TableProperties(configuration: Map[String, String]) {
  private def get(key: String): Option[String] = configuration.find(_._1.equalsIgnoreCase(key)).map(_._2)

  def checkpointInterval: Int = get("delta.checkpointInterval").map { v =>
    val n = v.trim.toInt
    if (n <= 0) throw new InvalidTableOperationException(s"delta.checkpointInterval must be positive, not $v")
    n
  }.getOrElse(10)

  /** `v2` for UUID-named V2 checkpoints with sidecars, `classic` otherwise. */
  def checkpointPolicy: String = get("delta.checkpointPolicy").map(_.trim.toLowerCase).getOrElse("classic")

  def logRetentionMs: Long = duration("delta.logRetentionDuration", "interval 30 days")
  def deletedFileRetentionMs: Long = duration("delta.deletedFileRetentionDuration", "interval 1 week")
  def expiredLogCleanup: Boolean = get("delta.enableExpiredLogCleanup").forall(_.trim.equalsIgnoreCase("true"))
  def writeStatsAsStruct: Boolean = get("delta.checkpoint.writeStatsAsStruct").forall(_.trim.equalsIgnoreCase("true"))

  private def duration(key: String, default: String): Long = {
    val text = get(key).getOrElse(default)
    val withPrefix = if (text.trim.toLowerCase.startsWith("interval")) text else s"interval $text"
    val interval = IntervalUtils.safeStringToInterval(UTF8String.fromString(withPrefix))
    if (interval == null) throw new InvalidTableOperationException(s"$key = '$text' is not a duration (e.g. 'interval 30 days')")
    interval.months * 30L * 86400000L + interval.days * 86400000L + interval.microseconds / 1000L
  }
}
