package io.silt.read

import scala.util.Try

import io.silt.config.{ByteSize, OptionSpec}
import io.silt.errors.UnsupportedOptionException
import org.apache.spark.sql.SparkSession

/** Where a new stream starts reading a table. */
sealed trait StartingPoint

object StartingPoint {
  /** The table's rows at the latest version, then each later commit (no starting option). */
  case object InitialSnapshot extends StartingPoint
  /** The commits from this version on (`startingVersion`). */
  final case class FromVersion(version: Long) extends StartingPoint
  /** Only commits made after the stream starts (`startingVersion = latest`). */
  case object AfterLatest extends StartingPoint
  /** The commits made at or after this time (`startingTimestamp`, epoch milliseconds). */
  final case class FromTimestamp(millis: Long, text: String) extends StartingPoint
}

/**
 * The options of `spark.readStream.format("silt")`, as Delta Lake defines them: where to start, how
 * much one micro-batch reads, and what to do with commits that delete or rewrite rows.
 */
final case class SourceOptions(
    start: StartingPoint,
    maxFilesPerTrigger: Option[Int],
    maxBytesPerTrigger: Option[Long],
    ignoreDeletes: Boolean,
    ignoreChanges: Boolean,
    skipChangeCommits: Boolean,
    readChangeFeed: Boolean = false)

object SourceOptions {
  /** Delta Lake's default of files per micro-batch, used when neither limit is given. */
  val DefaultMaxFilesPerTrigger = 1000

  private def honoured(name: String, doc: String) = OptionSpec(name, honoured = true, doc)

  val Options: Seq[OptionSpec] = Seq(
    honoured("startingVersion", "the first commit to read (a version or 'latest'); no initial snapshot"),
    honoured("startingTimestamp", "read the commits made at or after this time; no initial snapshot"),
    honoured("maxFilesPerTrigger", s"files one micro-batch reads at most (default $DefaultMaxFilesPerTrigger)"),
    honoured("maxBytesPerTrigger", "bytes one micro-batch reads at most, a soft limit (at least one file)"),
    honoured("skipChangeCommits", "skip commits that delete or rewrite rows"),
    honoured("ignoreDeletes", "skip commits that only remove files"),
    honoured("ignoreChanges", "read the files that commits rewrite again (rows may repeat)"),
    OptionSpec("versionAsOf", honoured = false, "time travel does not apply to a stream: use startingVersion"),
    OptionSpec("timestampAsOf", honoured = false, "time travel does not apply to a stream: use startingTimestamp"),
    honoured("readChangeFeed", "read the change data feed: every change row of each commit, deletes and updates too"),
    honoured("readChangeData", "the older name of readChangeFeed"),
    OptionSpec("schemaTrackingLocation", honoured = false,
      "schema tracking is not implemented: a schema change stops the stream, and a restart reads the new schema"),
    OptionSpec("failOnDataLoss", honoured = false,
      "a stream always fails when commits it has not read are gone from the log"),
    OptionSpec("excludeRegex", honoured = false, "filtering files by name is not implemented"))

  /** Keys Spark itself puts among a stream's options. */
  private val SparkInternal = Set("path", "paths")

  /** The options of a streaming read, each checked; any other option is refused, naming it. */
  def parse(spark: SparkSession, options: Map[String, String]): SourceOptions = {
    OptionSpec.refuseUnhonoured("streaming read", options, Options, SparkInternal)
    val lower = options.map { case (k, v) => k.toLowerCase -> v.trim }
    def bool(name: String): Boolean = lower.get(name.toLowerCase).exists { v =>
      Try(v.toBoolean).toOption.getOrElse(throw new UnsupportedOptionException(name, s"option $name must be true or false, not '$v'"))
    }
    val start = (lower.get("startingversion"), lower.get("startingtimestamp")) match {
      case (Some(_), Some(_)) => throw new UnsupportedOptionException("startingVersion",
        "give either startingVersion or startingTimestamp, not both")
      case (Some(v), None) if v.equalsIgnoreCase("latest") => StartingPoint.AfterLatest
      case (Some(v), None) => StartingPoint.FromVersion(Try(v.toLong).toOption.filter(_ >= 0).getOrElse(
        throw new UnsupportedOptionException("startingVersion", s"startingVersion must be a version number or " +
          s"'latest', not '$v'")))
      case (None, Some(ts)) => StartingPoint.FromTimestamp(TimeTravel.parseTimestamp(spark, ts, "startingTimestamp"), ts)
      case _ => StartingPoint.InitialSnapshot
    }
    val maxFiles = lower.get("maxfilespertrigger").map(v => Try(v.toInt).toOption.filter(_ > 0).getOrElse(
      throw new UnsupportedOptionException("maxFilesPerTrigger", s"maxFilesPerTrigger must be a positive number, not '$v'")))
    val maxBytes = lower.get("maxbytespertrigger").map(v => ByteSize.parse(v).getOrElse(
      throw new UnsupportedOptionException("maxBytesPerTrigger", s"maxBytesPerTrigger must be a byte size such as " +
        s"134217728, 128m or 1g, not '$v'")))
    val changeFeed = bool("readChangeFeed") || bool("readChangeData")
    if (changeFeed) Seq("ignoreDeletes", "ignoreChanges", "skipChangeCommits").find(bool).foreach { k =>
      throw new UnsupportedOptionException(k, s"option $k does not apply with readChangeFeed: a change-feed stream " +
        "reads every delete and update as change rows; leave it out")
    }
    SourceOptions(start, maxFiles, maxBytes, bool("ignoreDeletes"), bool("ignoreChanges"), bool("skipChangeCommits"),
      changeFeed)
  }
}
