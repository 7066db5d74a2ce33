package io.silt.features

import io.silt.actions.{Action, Metadata, Protocol}

/** The work a feature's files need before DROP FEATURE can take it out of the protocol. */
sealed abstract class DropCleanup(val description: String) extends Serializable
object DropCleanup {
  /** Nothing: turning its properties off is enough. */
  case object None extends DropCleanup("none")
  /** Every deletion vector purged (REORG … APPLY (PURGE)), so that no file needs one to be read. */
  case object PurgeDeletionVectors extends DropCleanup("purge deletion vectors")
  /** Every file holding a narrower type than the schema rewritten in the schema's types (type widening). */
  case object RewriteWidenedFiles extends DropCleanup("rewrite the files written before a type change")
  /**
   * Every file rewritten under the logical names, in the commit that takes the mapping metadata and
   * mode off (not before: the files written so far need them to be read).
   */
  case object RemoveColumnMapping extends DropCleanup("rewrite every file under the logical column names")
  /**
   * The log before `delta.requireCheckpointProtectionBeforeVersion` deleted in one go, as old as
   * `delta.dropFeatureTruncateHistory.retentionDuration` allows (checkpointProtection's drop).
   */
  case object TruncateProtectedHistory extends DropCleanup("truncate the history before the protected version")
  /** Every file recommitted without `baseRowId` and `defaultRowCommitVersion` (Delta's ROW TRACKING UNBACKFILL). */
  case object UnbackfillRowIds extends DropCleanup("recommit every file without row ids")
}

/**
 * How DROP FEATURE removes a feature (Delta's rules): the properties it turns off (a value, or
 * None: unset), what the user must remove first (`blockers`: names), the cleanup of its files, its
 * traces in the metadata that the commit taking it out of the protocol removes (`strip`), the log
 * actions that still use it (`traces`: TRUNCATE HISTORY lowers the protocol only once no kept
 * version has one), whether it is dropped only with TRUNCATE HISTORY, the domains the commit
 * taking it out of the protocol removes (`domains`), and whether any domain left blocks the drop
 * (`noDomainsLeft`: the `domainMetadata` feature itself).
 */
final case class FeatureDrop(disable: Seq[(String, Option[String])], cleanup: DropCleanup = DropCleanup.None,
    blockers: Metadata => Seq[String] = _ => Nil, strip: Metadata => Metadata = identity,
    traces: Action => Boolean = _ => false, onlyWithTruncateHistory: Boolean = false, domains: Seq[String] = Nil,
    noDomainsLeft: Boolean = false)

/** The protocol a table has once a feature is dropped. */
object FeatureDrops {
  /**
   * `p` without `feature`: the least protocol holding the features it declares but that one, with
   * `checkpointProtection` when readers had to understand the dropped feature (their history
   * before the drop still needs it; Delta's rule), unless that history was truncated.
   */
  def protocolWithout(p: Protocol, feature: TableFeature, historyTruncated: Boolean = false): Protocol = {
    val rest = TableFeatures.declared(p).filterNot(_ == feature)
    val protection = if (feature.isReaderWriter && !historyTruncated) Seq(CheckpointProtectionFeature) else Nil
    TableFeatures.protocolOf(TableFeatures.withRequired((rest ++ protection).distinct))
  }
}
