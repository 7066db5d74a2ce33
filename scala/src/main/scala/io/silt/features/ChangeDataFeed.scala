package io.silt.features

import io.silt.actions._
import io.silt.errors.InvalidTableOperationException

/**
 * Delta's change data feed (`delta.enableChangeDataFeed`): the names it gives to change rows and
 * where their files live. A table with it on may not have columns of these names.
 */
object ChangeDataFeed {
  /** The folder of change data files, under the table root. */
  val Folder = "_change_data"
  val ChangeTypeColumn = "_change_type"
  val CommitVersionColumn = "_commit_version"
  val CommitTimestampColumn = "_commit_timestamp"
  val Delete = "delete"
  val Insert = "insert"
  val UpdatePreimage = "update_preimage"
  val UpdatePostimage = "update_postimage"

  val ReservedColumns: Seq[String] = Seq(ChangeTypeColumn, CommitVersionColumn, CommitTimestampColumn)

  def enabled(m: Metadata): Boolean = TableProperties(m.configuration).changeDataFeed

  /** Refuses metadata that turns the feed on for a table with a column named as a change row's own. */
  def checkColumns(tablePath: String, m: Metadata): Unit = if (enabled(m)) {
    m.schema.fieldNames.find(n => ReservedColumns.exists(_.equalsIgnoreCase(n))).foreach { n =>
      throw new InvalidTableOperationException(s"table $tablePath has a column named $n, which the change data " +
        s"feed (${TableProperties.EnableChangeDataFeed.key}) gives to each change row: rename the column first")
    }
  }
}
