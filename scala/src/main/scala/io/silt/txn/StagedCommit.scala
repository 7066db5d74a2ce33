package io.silt.txn

import java.util.UUID

import io.silt.actions._
import io.silt.config.{DeltaSessionKeys, SiltSettings, SiltVersion}
import io.silt.dv.DeletionVectorFiles
import io.silt.errors.{ConcurrentDeleteReadException, ConcurrentModificationException, ManifestWithDeletionVectorsException}
import io.silt.features._
import io.silt.log._
import org.apache.spark.sql.SparkSession

/**
 * What a transaction hands its commit: the table, the snapshot read and what was read of it, the
 * protocol and metadata it sets (None: unchanged) and leaves, the rest of its state, and what to call once the
 * commit file is written.
 */
private[txn] final case class CommitInput(log: TableLog, readSnapshot: Option[Snapshot], spark: SparkSession,
    hooks: Seq[PostCommitHook], readSet: ReadSet, newProtocol: Option[Protocol], newMetadata: Option[Metadata],
    protocol: Protocol, metadata: Metadata, appTransaction: Option[SetTransaction], rowMover: Option[RowMover],
    timeZone: String, written: () => Unit)

/**
 * One commit of a transaction, in stages, as delta-rs stages its commits: `prepare` once (the
 * statement's refusals, the features' backfills and checks, the isolation level), then for each
 * version tried `attempt` (the features' per-attempt parts, `TableFeature.atAttempt`: in-commit
 * timestamps, row ids; then the commit file), `resolve` after a lost race (the winning commit checked
 * for conflicts, by files and by rows, `ConflictChecker`; the commit rebased on it, yielding groups
 * given up, or the transaction failed), and `finish` once written (post-commit hooks). A feature adds
 * its part to a stage through `TableFeature`, not a branch here.
 */
private[txn] final class StagedCommit(in: CommitInput, common: Seq[Action], groups: Seq[YieldingGroup],
    op: Seq[YieldingGroup] => Operation) {
  import in._
  private val readVersion = readSnapshot.map(_.version).getOrElse(-1L)
  private var readSet = in.readSet
  private var kept = groups
  private var actions: Seq[Action] = Nil
  private var fixed: Seq[Action] = Nil
  private def body = newProtocol.toSeq ++ newMetadata.toSeq ++ actions
  private val changesMetadata = newMetadata.isDefined || newProtocol.isDefined
  private var level: IsolationLevel = IsolationLevel.SnapshotIsolation
  private var isBlindAppend = false
  private lazy val dvFiles = DeletionVectorFiles(spark, log.tablePath)
  private var checker: ConflictChecker = _
  private lazy val marked = new MarkedRows(log.tablePath, actions, dvFiles)
  // The table's metadata domains as of the version before the one tried.
  private var domains: Map[String, DomainMetadata] = readSnapshot.map(_.domains).getOrElse(Map.empty)
  private var checkedRows = 0L

  /** Runs the stages: the version written and the groups kept; None when every group yielded. */
  def run(): Option[YieldedCommit] = {
    prepare()
    val maxAttempts = SiltSettings.CommitMaxAttempts(spark)
    val backoffMs = SiltSettings.CommitRetryBackoffMs(spark)
    CommitPause.beforeCommit(log.tablePath, op(kept).name)
    var version = readVersion + 1
    var attempt = 1
    while (true) {
      val written = this.attempt(version)
      if (written.isDefined) return Some(finish(version, written.get))
      if (readSnapshot.isEmpty) throw new ConcurrentModificationException(
        s"table ${log.tablePath} was created by a concurrent writer; nothing was committed. Retry the operation.")
      if (attempt >= maxAttempts) throw new ConcurrentModificationException(s"gave up committing to ${log.tablePath} " +
        s"after $attempt attempts (${SiltSettings.CommitMaxAttempts.key}); nothing was committed")
      if (!resolve(version)) return None
      OptimisticTransaction.backoff(backoffMs, attempt)
      version += 1
      attempt += 1
    }
    throw new IllegalStateException("unreachable")
  }

  /** The statement's refusals, the features' added actions and checks, and what decides conflicts. */
  private def prepare(): Unit = {
    val statement = op(groups)
    val what = s"${statement.name} on ${log.tablePath}"
    DeltaSessionKeys.refuseAt(spark.conf, Operation.kindsOf(statement), what)
    TableProperties.refuseAt(metadata.configuration, Operation.kindsOf(statement), what)
    val operationActions = common ++ groups.flatMap(_.actions)
    def pendingWith(as: Seq[Action]) = PendingCommit(log.tablePath.toString, readSnapshot.map(_.metadata), metadata,
      protocol, as, () => readSnapshot.map(_.files).getOrElse(IndexedSeq.empty))
    val added = TableFeatures.all.flatMap(_.addedActions(pendingWith(operationActions)))
    // A backfill rewrites every live file: every row is read, and checked against what concurrent commits add.
    if (added.nonEmpty) readSet = readSet.copy(wholeTable = true, validatesRows = true)
    fixed = common ++ added ++ appTransaction
    actions = operationActions ++ added ++ appTransaction
    TableFeatures.all.foreach(_.checkCommit(pendingWith(actions)))
    checkManifestCompatible()
    isBlindAppend = readSet.isEmpty && actions.forall {
      case a: AddFile => a.dataChange
      case _: RemoveFile => false
      case _ => true
    }
    // A commit that changes no data (OPTIMIZE, REORG) only needs what it read to still be there.
    val changesData = changesMetadata || actions.exists {
      case a: AddFile => a.dataChange
      case r: RemoveFile => r.dataChange
      case _ => false
    }
    level = if (changesData) TableProperties(metadata.configuration).isolationLevel else IsolationLevel.SnapshotIsolation
    checker = checkerNow()
  }

  /** Writes the commit as `version` after each feature's part; the actions written, or None when another commit has it. */
  private def attempt(version: Long): Option[Seq[Action]] = {
    val start = CommitAttempt(version, body, protocol, metadata, readSnapshot.map(_.metadata), domains,
      CommitClock.now(), () => log.commitTime(version - 1))
    val a = TableFeatures.all.foldLeft(start)((a, f) => f.atAttempt(a))
    val info = CommitInfo(commitInfoJson(op(kept), a.inCommitTimestamp.getOrElse(start.now), a.inCommitTimestamp))
    val lines = (info +: a.actions).map(ActionCodec.toJson)
    if (log.store.writeIfAbsent(FileNames.commitPath(log.logPath, version), lines)) Some(a.actions) else None
  }

  /**
   * Builds on the commit that won `version`: yielding groups that read files it removed are given up (false:
   * all were), its changes are checked for conflicts (failing the transaction with Delta Lake's exception),
   * and the rows this transaction marks are rebased on its deletion vectors or moved rows.
   */
  private def resolve(version: Long): Boolean = {
    val winning = log.readCommit(version)
    if (groups.nonEmpty) {
      val gone = winning.collect { case r: RemoveFile => TablePaths.canonical(log.tablePath, r.path) }.toSet
      val (lost, stay) = kept.partition(_.reads.exists(a => gone(TablePaths.canonical(log.tablePath, a.path))))
      if (lost.nonEmpty) {
        if (stay.isEmpty) return false
        kept = stay
        readSet = readSet.copy(files = stay.flatMap(_.reads).map(a => TablePaths.canonical(log.tablePath, a.path)).toSet)
        actions = fixed ++ stay.flatMap(_.actions)
        checker = checkerNow()
      }
    }
    val rebases = checker.check(version, winning, Some(marked).filter(_ => readSet.onlyMarkedRows))
    checkedRows += checker.checkedRows
    if (rebases.nonEmpty) {
      marked.rebase(rebases, rowMover, dvFiles, System.currentTimeMillis(),
        what => throw new ConcurrentDeleteReadException(checker.message(version, winning, what)))
      actions = marked.applyTo(actions)
      // Files the marks moved to are now read, and removed by this transaction: their changes are checked.
      readSet = readSet.copy(files = readSet.files ++ marked.paths)
      checker = checkerNow()
    }
    domains ++= winning.collect { case d: DomainMetadata => d.domain -> d }
    true
  }

  /** After the commit file of `version` is written: the session's record, the test hook, post-commit hooks. */
  private def finish(version: Long, actionsWritten: Seq[Action]): YieldedCommit = {
    written()
    SiltSettings.LastCommitVersionInSession.record(spark.conf, version)
    CommitPause.afterCommit(log.tablePath)
    lazy val snapshot = log.committed(readSnapshot, version, actionsWritten)
    PostCommitHook.runAll(spark, log, version, hooks, snapshot)
    YieldedCommit(version, kept)
  }

  private def checkerNow(): ConflictChecker = {
    def own[A](f: PartialFunction[Action, A]) = actions.collect(f).toSet
    val maxCheckedRows = Some(SiltSettings.RowLevelConcurrencyMaxCheckedRows(spark))
      .filter(_ > 0 && SiltSettings.RowLevelConcurrency(spark))
    new ConflictChecker(readSnapshot.orNull, readSet, own { case r: RemoveFile => TablePaths.canonical(log.tablePath, r.path) },
      own { case t: SetTransaction => t.appId }, own { case d: DomainMetadata => d.domain }, level, timeZone, dvFiles,
      maxCheckedRows, changesMetadata)
  }

  /**
   * A table that keeps symlink manifests takes no deletion vectors (manifest readers would return
   * the deleted rows): neither new ones, nor files that have them when the property is turned on.
   */
  private def checkManifestCompatible(): Unit = {
    if (!TableProperties(metadata.configuration).symlinkManifest) return
    val added = actions.collect { case a: AddFile if a.deletionVector.isDefined => a.path }
    val turnedOn = readSnapshot.forall(s => !TableProperties(s.metadata.configuration).symlinkManifest)
    val removed = actions.collect { case r: RemoveFile => TablePaths.canonical(log.tablePath, r.path) }.toSet
    val kept = if (!turnedOn) Nil else readSnapshot.toSeq.flatMap(_.files).filter(a =>
      a.deletionVector.isDefined && !removed(TablePaths.canonical(log.tablePath, a.path))).map(_.path)
    val withDv = added ++ kept
    if (withDv.nonEmpty) {
      throw new ManifestWithDeletionVectorsException(log.tablePath.toString, s"table ${log.tablePath} keeps symlink " +
        s"manifests (${TableProperties.SymlinkManifest.key} = true), which cannot carry deletion vectors, but " +
        s"${withDv.size} of its files would have them (${withDv.take(5).mkString(", ")}${if (withDv.size > 5) ", …" else ""}). " +
        "Run REORG TABLE … APPLY (PURGE) first, or turn the property off; nothing was committed.")
    }
  }

  private def commitInfoJson(op: Operation, timestamp: Long, inCommitTimestamp: Option[Long]) = {
    val o = ActionCodec.mapper.createObjectNode()
    o.put("timestamp", timestamp)
    inCommitTimestamp.foreach(o.put("inCommitTimestamp", _))
    o.put("operation", op.name)
    val params = o.putObject("operationParameters")
    op.parameters.toSeq.sortBy(_._1).foreach { case (k, v) => params.put(k, v) }
    if (readVersion >= 0) o.put("readVersion", readVersion)
    o.put("isolationLevel", level.name)
    o.put("isBlindAppend", isBlindAppend)
    val metrics = o.putObject("operationMetrics")
    op.metrics.toSeq.sortBy(_._1).foreach { case (k, v) => metrics.put(k, v.toString) }
    // Silt's own: rows of concurrent commits' files read to tell that none was one this commit read.
    if (checkedRows > 0) metrics.put(OptimisticTransaction.ConflictCheckedRowsMetric, checkedRows.toString)
    op.userMetadata.orElse(SiltSettings.UserMetadata.option(spark)).foreach(o.put("userMetadata", _))
    // Delta Lake's mark of a metadata change that only moves identity marks: its writers build on such a commit.
    if (newProtocol.isEmpty && newMetadata.exists(m => readSnapshot.exists(s => IdentityColumns.onlyMarksChanged(s.metadata, m))))
      o.putObject("tags").put(IdentityColumns.OnlyMarksTag, "true")
    o.put("engineInfo", s"Silt/${SiltVersion.Version} Apache-Spark/${spark.version}")
    o.put("txnId", UUID.randomUUID().toString)
    o
  }
}
