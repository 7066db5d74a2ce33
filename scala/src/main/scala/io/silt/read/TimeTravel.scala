package io.silt.read

import io.silt.errors.VersionNotFoundException
import io.silt.log.{Snapshot, TableLog}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Cast, Literal}
import org.apache.spark.sql.types.TimestampType
import org.apache.spark.unsafe.types.UTF8String

/** Which snapshot a read asks for: the latest, a version, or the state as of a timestamp. */
sealed trait TimeTravel {
  def snapshot(log: TableLog): Snapshot
}

object TimeTravel {
  case object Latest extends TimeTravel { def snapshot(log: TableLog): Snapshot = log.latest() }
  final case class AtVersion(version: Long) extends TimeTravel {
    def snapshot(log: TableLog): Snapshot = withinRetention(log, log.snapshotAt(version))
  }
  final case class AsOfTimestamp(millis: Long) extends TimeTravel {
    def snapshot(log: TableLog): Snapshot = withinRetention(log, log.snapshotAsOf(millis))
  }

  private def withinRetention(log: TableLog, s: Snapshot): Snapshot = {
    log.checkWithinRetention(s.version, "time travel to")
    s
  }

  /** From the reader options versionAsOf / timestampAsOf (at most one of them). */
  def fromOptions(spark: SparkSession, options: Map[String, String]): TimeTravel = {
    val lower = options.map { case (k, v) => k.toLowerCase -> v }
    (lower.get("versionasof"), lower.get("timestampasof")) match {
      case (Some(_), Some(_)) => throw new VersionNotFoundException("give either versionAsOf or timestampAsOf, not both")
      case (Some(v), None) => AtVersion(try v.trim.toLong catch {
        case _: NumberFormatException => throw new VersionNotFoundException(s"versionAsOf '$v' is not a version number")
      })
      case (None, Some(ts)) => AsOfTimestamp(parseTimestamp(spark, ts))
      case _ => Latest
    }
  }

  /** A timestamp string in the session time zone, as epoch milliseconds. */
  def parseTimestamp(spark: SparkSession, ts: String, option: String = "timestampAsOf"): Long = {
    val tz = spark.sessionState.conf.sessionLocalTimeZone
    val micros = Cast(Literal(UTF8String.fromString(ts.trim)), TimestampType, Some(tz)).eval()
    if (micros == null) throw new VersionNotFoundException(s"$option '$ts' is not a valid timestamp")
    Math.floorDiv(micros.asInstanceOf[Long], 1000L)
  }
}
