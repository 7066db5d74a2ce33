package io.silt.read

import io.silt.config.OptionSpec

/** The DataFrameReader options a Delta user may pass, and what Silt does with each. */
object ReadOptions {
  private def refused(why: String)(name: String) = OptionSpec(name, honoured = false, s"$why: refused")

  /** Honoured first, then the Delta read options Silt refuses (any other option is refused too). */
  val Options: Seq[OptionSpec] = Seq(
    OptionSpec("versionAsOf", honoured = true, "time travel to this version"),
    OptionSpec("timestampAsOf", honoured = true, "time travel to the last commit at or before this timestamp")) ++
    Seq("readChangeFeed", "readChangeData").map(refused("the change data feed is not implemented")) ++
    Seq("startingVersion", "startingTimestamp", "endingVersion", "endingTimestamp").map(
      refused("the change data feed is not implemented; startingVersion and startingTimestamp apply to streaming reads (readStream)")) ++
    Seq("maxFilesPerTrigger", "maxBytesPerTrigger", "ignoreDeletes", "ignoreChanges", "skipChangeCommits").map(
      refused("an option of streaming reads (spark.readStream)")) ++
    Seq("schemaTrackingLocation").map(refused("schema tracking of streaming reads is not implemented"))

  /** Keys Spark itself puts among a read's options. */
  private val SparkInternal = Set("path", "paths")

  /** Refuses every option that Silt does not honour, naming it. */
  def validate(options: Map[String, String]): Unit =
    OptionSpec.refuseUnhonoured("read", options, Options, SparkInternal)
}
