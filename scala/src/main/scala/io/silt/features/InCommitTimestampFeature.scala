package io.silt.features

import io.silt.features.FeatureKind.Writer
import io.silt.features.FeatureSupport.ReadWrite

/**
 * In-commit timestamps (`delta.enableInCommitTimestamps`): each commit's time in its first
 * `commitInfo`, strictly increasing (stamped by `txn.OptimisticTransaction`); time travel,
 * history, the change feed and streams read it (`log.CommitRange`).
 */
object InCommitTimestampFeature extends Feature("inCommitTimestamp", Writer, ReadWrite) {
  override def neededBy(t: TableShape): Boolean = t.properties.inCommitTimestamps
  override def drop: Option[FeatureDrop] = Some(FeatureDrop(Seq(TableProperties.EnableInCommitTimestamps.key -> Some("false"),
    TableProperties.InCommitTimestampEnablementVersion.key -> None, TableProperties.InCommitTimestampEnablementTimestamp.key -> None)))
}
