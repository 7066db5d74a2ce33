package io.silt.features

import io.silt.actions.{Action, AddFile, Metadata, Protocol}
import io.silt.errors.InvalidTableOperationException
import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * Row tracking (`delta.enableRowTracking`): stable row ids and row commit versions. Its rules are
 * in [[RowTracking]]; a commit turning it on for a table with files recommits those files with ids.
 */
object RowTrackingFeature extends Feature("rowTracking", Writer, ReadWrite) {
  override def requires: Seq[String] = Seq(DomainMetadataFeature.name)
  override def neededBy(t: TableShape): Boolean = t.properties.rowTracking

  // Delta's steps: ids suspended (no writer assigns new ones), every file recommitted without them,
  // then the properties and the high-water mark domain removed with the feature.
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(
    Seq(TableProperties.EnableRowTracking.key -> Some("false"), TableProperties.RowTrackingSuspended.key -> Some("true")),
    DropCleanup.UnbackfillRowIds,
    strip = m => m.copy(configuration = m.configuration -- Seq(TableProperties.EnableRowTracking.key,
      TableProperties.RowTrackingSuspended.key, RowTracking.RowIdColumnKey, RowTracking.RowCommitVersionColumnKey)),
    domains = Seq(RowTracking.Domain)))

  override def addedActions(c: PendingCommit): Seq[Action] = {
    val turnedOn = RowTracking.enabled(c.protocol, c.metadata) && c.previous.exists(p => !TableProperties(p.configuration).rowTracking)
    if (turnedOn) RowTracking.backfill(c.liveFiles(), c.actions) else Nil
  }

  override def preparedMetadata(p: Protocol, m: Metadata): Metadata = RowTracking.withColumnNames(p, m)

  // Fresh ids go above the mark of the commits before this attempt, whichever won the race.
  override def atAttempt(a: CommitAttempt): CommitAttempt = if (!RowTracking.assigning(a.protocol, a.metadata)) a
    else a.copy(actions = RowTracking.assign(a.actions, RowTracking.highWaterMark(a.domains.values), a.version))

  override def checkCommit(c: PendingCommit): Unit = RowTracking.materializedColumns(c.metadata).foreach { cols =>
    cols.names.find(n => c.metadata.schema.exists(_.name.equalsIgnoreCase(n))).foreach { n =>
      throw new InvalidTableOperationException(s"column $n of table ${c.tablePath} has the name row tracking keeps its " +
        s"hidden ${if (n == cols.rowId) "row ids" else "row commit versions"} in; rename the column")
    }
  }
}
