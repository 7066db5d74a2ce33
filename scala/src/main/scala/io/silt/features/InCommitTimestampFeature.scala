package io.silt.features

import io.silt.actions.Metadata
import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * In-commit timestamps (`delta.enableInCommitTimestamps`): each commit's time in its first
 * `commitInfo` (written by `txn.StagedCommit` from the attempt's stamp), strictly increasing;
 * time travel, history, the change feed and streams read it (`log.CommitRange`).
 */
object InCommitTimestampFeature extends Feature("inCommitTimestamp", Writer, ReadWrite) {
  // Strictly after the commit before, even when this machine's clock is behind it; a commit turning them on
  // for a table with commits before it records where they begin.
  override def atAttempt(a: CommitAttempt): CommitAttempt = if (!TableProperties(a.metadata.configuration).inCommitTimestamps) a
    else {
      val stamp = if (a.version == 0) a.now else math.max(a.now, a.previousCommitTime() + 1)
      val enabling = a.previous.exists(p => !TableProperties(p.configuration).inCommitTimestamps)
      val actions = if (!enabling) a.actions else a.actions.map {
        case m: Metadata => m.copy(configuration = m.configuration ++ Map(
          TableProperties.InCommitTimestampEnablementVersion.key -> a.version.toString,
          TableProperties.InCommitTimestampEnablementTimestamp.key -> stamp.toString))
        case other => other
      }
      a.copy(actions = actions, inCommitTimestamp = Some(stamp))
    }

  override def neededBy(t: TableShape): Boolean = t.properties.inCommitTimestamps
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Seq(TableProperties.EnableInCommitTimestamps.key -> Some("false"),
    TableProperties.InCommitTimestampEnablementVersion.key -> None, TableProperties.InCommitTimestampEnablementTimestamp.key -> None)))
}
