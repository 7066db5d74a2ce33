package io.silt.features

import java.util.UUID

import io.silt.actions.{Action, ActionCodec, AddFile, DomainMetadata, Metadata, Protocol, RemoveFile}
import io.silt.errors.InvalidTableOperationException

/** The hidden columns a table keeps stable row ids and row commit versions in (protocol: materialized). */
final case class MaterializedRowColumns(rowId: String, rowCommitVersion: String) {
  def names: Seq[String] = Seq(rowId, rowCommitVersion)
}

/**
 * Row tracking's rules (the `rowTracking` feature): which tables assign row ids, the high-water
 * mark domain, the hidden column names, and the assignment of fresh ids to the files a commit
 * adds. Each commit attempt assigns them (`RowTrackingFeature.atAttempt`); scans read
 * `_metadata.row_id` / `row_commit_version` (`read.RowTrackingColumns`); DML and OPTIMIZE keep
 * them in the hidden columns (`write.RowTrackingWrites`).
 */
object RowTracking {
  val Domain = "delta.rowTracking"
  val HighWaterMarkKey = "rowIdHighWaterMark"
  val RowIdColumnKey = "delta.rowTracking.materializedRowIdColumnName"
  val RowCommitVersionColumnKey = "delta.rowTracking.materializedRowCommitVersionColumnName"

  def supported(p: Protocol): Boolean = p.writerFeatures.exists(_.contains(RowTrackingFeature.name))

  /** Whether writers give every file they add fresh row ids: supported and not suspended. */
  def assigning(p: Protocol, m: Metadata): Boolean = supported(p) && !TableProperties(m.configuration).rowTrackingSuspended

  /** Whether every row has an id readers may rely on, and writers keep (`delta.enableRowTracking`). */
  def enabled(p: Protocol, m: Metadata): Boolean = supported(p) && TableProperties(m.configuration).rowTracking

  def materializedColumns(m: Metadata): Option[MaterializedRowColumns] = {
    val props = TableProperties(m.configuration)
    for (id <- props.get(RowIdColumnKey); version <- props.get(RowCommitVersionColumnKey))
      yield MaterializedRowColumns(id, version)
  }

  /** The hidden columns of a table whose rows have ids readers may rely on. */
  def readableColumns(p: Protocol, m: Metadata): Option[MaterializedRowColumns] =
    if (enabled(p, m)) materializedColumns(m) else None

  /** `m` with hidden column names (as Delta names them) once the protocol supports row tracking. */
  def withColumnNames(p: Protocol, m: Metadata): Metadata =
    if (!supported(p) || materializedColumns(m).isDefined) m
    else m.copy(configuration = m.configuration ++ Map(
      RowIdColumnKey -> s"_row-id-col-${UUID.randomUUID()}",
      RowCommitVersionColumnKey -> s"_row-commit-version-col-${UUID.randomUUID()}"))

  /** The highest row id assigned, from the table's `delta.rowTracking` domain; None: none yet. */
  def highWaterMark(domains: Iterable[DomainMetadata]): Option[Long] =
    domains.find(d => d.domain == Domain && !d.removed).map { d =>
      Option(ActionCodec.mapper.readTree(d.configuration).get(HighWaterMarkKey)).filter(_.canConvertToLong).map(_.asLong)
        .getOrElse(throw new InvalidTableOperationException(
          s"the table's $Domain domain has no $HighWaterMarkKey: '${d.configuration}'"))
    }

  /**
   * `actions` as a commit at `version` writes them: each add without a `baseRowId` gets the ids
   * above `highWaterMark` (one per physical row), each without a `defaultRowCommitVersion` gets
   * `version`, and the domain records the new mark when it moved. Adds keeping their ids (a
   * deletion vector added to a file, a restored file) keep them; removes carry what their adds had.
   */
  def assign(actions: Seq[Action], highWaterMark: Option[Long], version: Long): Seq[Action] = {
    // A commit may carry a mark of its own (a clone takes its source's): ids go above both.
    val declared = this.highWaterMark(actions.collect { case d: DomainMetadata => d })
    val start = (highWaterMark ++ declared).reduceOption(_ max _)
    var mark = start.getOrElse(-1L)
    val assigned = actions.map {
      case a: AddFile =>
        val base = a.baseRowId.getOrElse {
          val rows = a.numPhysicalRecords.getOrElse(throw new InvalidTableOperationException(
            s"file ${a.path} has no row count in its statistics, so it cannot be given row ids (row tracking)"))
          val first = mark + 1
          mark += rows
          first
        }
        a.copy(baseRowId = Some(base), defaultRowCommitVersion = a.defaultRowCommitVersion.orElse(Some(version)))
      case other => other
    }
    val moved = mark > start.getOrElse(-1L)
    val withoutOwnMark = assigned.filterNot { case d: DomainMetadata => d.domain == Domain; case _ => false }
    if (moved) withoutOwnMark :+ markDomain(mark) else assigned
  }

  /** The domain recording `mark` as the highest row id assigned (with the domain's name, as Delta writes it). */
  def markDomain(mark: Long): DomainMetadata =
    DomainMetadata(Domain, s"""{"$HighWaterMarkKey":$mark,"domainName":"$Domain"}""", removed = false)

  /** The live files a commit turning row tracking on must recommit with ids (the backfill): those without any. */
  def backfill(live: Seq[AddFile], actions: Seq[Action]): Seq[AddFile] = {
    val replaced = actions.collect { case a: AddFile => a.path; case r: RemoveFile => r.path }.toSet
    live.filter(a => a.baseRowId.isEmpty && !replaced(a.path)).map(_.copy(dataChange = false))
  }
}
