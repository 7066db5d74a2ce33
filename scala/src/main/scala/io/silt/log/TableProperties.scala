package io.silt.log

import io.silt.errors.{InvalidTableOperationException, UnsupportedOptionException}
import org.apache.spark.sql.catalyst.util.IntervalUtils
import org.apache.spark.unsafe.types.UTF8String

/** The `delta.*` table properties Silt honours; setting any other is refused (see [[TableProperties.checkSettable]]). */
object TableProperties {
  val Honoured: Seq[String] = Seq("delta.enableDeletionVectors", "delta.checkpointInterval", "delta.checkpointPolicy",
    "delta.logRetentionDuration", "delta.deletedFileRetentionDuration", "delta.enableExpiredLogCleanup",
    "delta.dataSkippingNumIndexedCols", "delta.dataSkippingStatsColumns", "delta.checkpoint.writeStatsAsStruct",
    "delta.appendOnly")

  /**
   * Refuses to set a `delta.*` property Silt does not implement (a reader of the table would
   * trust it: a change data feed, column mapping, row tracking, …), naming it.
   */
  def checkSettable(keys: Iterable[String]): Unit =
    keys.find(k => k.toLowerCase.startsWith("delta.") && !Honoured.exists(_.equalsIgnoreCase(k))).foreach { k =>
      throw new UnsupportedOptionException(k, s"table property $k is not implemented by Silt, so it cannot be " +
        s"set; Silt honours ${Honoured.mkString(", ")}")
    }
}

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
