package io.silt.read

import io.silt.OptionSpec

/** The DataFrameReader options a Delta user may pass, and what Silt does with each. */
object ReadOptions {
  /** Honoured first, then the Delta read options Silt refuses (any other option is refused too). */
  val Options: Seq[OptionSpec] = Seq(
    OptionSpec("versionAsOf", honoured = true, "time travel to this version"),
    OptionSpec("timestampAsOf", honoured = true, "time travel to the last commit at or before this timestamp"),
    OptionSpec("readChangeFeed", honoured = false, "the change data feed is not implemented: refused"),
    OptionSpec("readChangeData", honoured = false, "the change data feed is not implemented: refused"),
    OptionSpec("startingVersion", honoured = false, "change feed and streaming reads are not implemented: refused"),
    OptionSpec("startingTimestamp", honoured = false, "change feed and streaming reads are not implemented: refused"),
    OptionSpec("endingVersion", honoured = false, "the change data feed is not implemented: refused"),
    OptionSpec("endingTimestamp", honoured = false, "the change data feed is not implemented: refused"),
    OptionSpec("maxFilesPerTrigger", honoured = false, "streaming reads are not implemented: refused"),
    OptionSpec("maxBytesPerTrigger", honoured = false, "streaming reads are not implemented: refused"),
    OptionSpec("ignoreDeletes", honoured = false, "streaming reads are not implemented: refused"),
    OptionSpec("ignoreChanges", honoured = false, "streaming reads are not implemented: refused"),
    OptionSpec("skipChangeCommits", honoured = false, "streaming reads are not implemented: refused"),
    OptionSpec("schemaTrackingLocation", honoured = false, "streaming reads are not implemented: refused"))

  /** Keys Spark itself puts among a read's options. */
  private val SparkInternal = Set("path", "paths")

  /** Refuses every option that Silt does not honour, naming it. */
  def validate(options: Map[String, String]): Unit =
    OptionSpec.refuseUnhonoured("read", options, Options, SparkInternal)
}
