package io.silt.read

import io.silt.config.OptionSpec
import io.silt.errors.UnsupportedOptionException

/** The DataFrameReader options a Delta user may pass, and what Silt does with each. */
object ReadOptions {
  private def refused(why: String)(name: String) = OptionSpec(name, honoured = false, s"$why: refused")

  /** Options that select a range of versions of the change data feed. */
  val ChangeFeedRange: Seq[String] = Seq("startingVersion", "startingTimestamp", "endingVersion", "endingTimestamp")

  /** Honoured first, then the Delta read options Silt refuses (any other option is refused too). */
  val Options: Seq[OptionSpec] = Seq(
    OptionSpec("versionAsOf", honoured = true, "time travel to this version"),
    OptionSpec("timestampAsOf", honoured = true, "time travel to the last commit at or before this timestamp"),
    OptionSpec("readChangeFeed", honoured = true, "read the change data feed (with startingVersion or startingTimestamp)"),
    OptionSpec("readChangeData", honoured = true, "the older name of readChangeFeed"),
    OptionSpec("fs.*", honoured = true, "Hadoop file-system settings of this table alone (load(path) only)"),
    OptionSpec("dfs.*", honoured = true, "Hadoop file-system settings of this table alone (load(path) only)")) ++
    ChangeFeedRange.map(n => OptionSpec(n, honoured = true, "the versions of a change-feed read (readChangeFeed)")) ++
    Seq("maxFilesPerTrigger", "maxBytesPerTrigger", "ignoreDeletes", "ignoreChanges", "skipChangeCommits").map(
      refused("an option of streaming reads (spark.readStream)")) ++
    Seq("schemaTrackingLocation").map(refused("schema tracking of streaming reads is not implemented"))

  /** Keys Spark itself puts among a read's options. */
  private val SparkInternal = Set("path", "paths")

  /** Whether the options ask for the change data feed. */
  def readsChangeFeed(options: Map[String, String]): Boolean = options.exists { case (k, v) =>
    (k.equalsIgnoreCase("readChangeFeed") || k.equalsIgnoreCase("readChangeData")) && (v.trim.toLowerCase match {
      case "true" => true
      case "false" => false
      case _ => throw new UnsupportedOptionException(k, s"option $k must be true or false, not '$v'")
    })
  }

  /**
   * Refuses every option that Silt does not honour, naming it; the version range options only
   * with the change feed, time travel only without it.
   */
  def validate(options: Map[String, String]): Unit = {
    OptionSpec.refuseUnhonoured("read", options, Options, SparkInternal)
    val given = (names: Seq[String]) => options.keys.find(k => names.exists(_.equalsIgnoreCase(k)))
    if (readsChangeFeed(options)) given(Seq("versionAsOf", "timestampAsOf")).foreach { k =>
      throw new UnsupportedOptionException(k, s"option $k does not apply to a change-feed read: give its versions with " +
        "startingVersion/endingVersion or startingTimestamp/endingTimestamp")
    } else given(ChangeFeedRange).foreach { k =>
      throw new UnsupportedOptionException(k, s"option $k selects versions of the change data feed: set readChangeFeed " +
        "to 'true' (for a streaming read, use spark.readStream)")
    }
  }
}
