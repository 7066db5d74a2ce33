package io.silt.txn

import java.util.UUID

import io.silt.config.{DeltaSessionKeys, SiltSettings, SiltVersion}
import io.silt.dv.DeletionVectorFiles
import io.silt.errors.{ConcurrentDeleteReadException, ConcurrentModificationException, ManifestWithDeletionVectorsException}
import io.silt.actions._
import io.silt.features._
import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import io.silt.log._
import io.silt.partition.{PartitionPredicates, PartitionValues}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}

/**
 * One optimistic transaction: reads a snapshot, records what it read, and commits the next
 * version only if no concurrent commit changed what it read. Blind appends are retried on top
 * of concurrent commits; a real conflict raises ConcurrentModificationException.
 */
final class OptimisticTransaction(val log: TableLog, val readSnapshot: Option[Snapshot], spark: SparkSession,
    hooks: Seq[PostCommitHook] = PostCommitHook.installed) {
  private var readSet = ReadSet()
  private var newMetadata: Option[Metadata] = None
  private var newProtocol: Option[Protocol] = None
  private var committed = false
  private var appTransaction: Option[SetTransaction] = None
  private val timeZone = spark.sessionState.conf.sessionLocalTimeZone

  def readVersion: Long = readSnapshot.map(_.version).getOrElse(-1L)
  def tableExists: Boolean = readSnapshot.isDefined

  def metadata: Metadata = newMetadata.orElse(readSnapshot.map(_.metadata)).getOrElse(
    throw new IllegalStateException(s"table ${log.tablePath} has no metadata yet"))
  def protocol: Protocol = newProtocol.orElse(readSnapshot.map(_.protocol)).getOrElse(
    throw new IllegalStateException(s"table ${log.tablePath} has no protocol yet"))

  /**
   * Sets the metadata this transaction commits. Column mapping ids and physical names are given to
   * new columns here, the one place every schema change passes; `replacingTable`: a REPLACE, which
   * may change the column mapping mode.
   */
  def updateMetadata(requested: Metadata, replacingTable: Boolean = false): Unit = {
    // CHAR(n) and VARCHAR(n) are strings with their declared type in the column's metadata, as Delta stores them.
    val m = if (!CharVarcharUtils.hasCharVarchar(requested.schema)) requested
      else requested.copy(schemaString = CharVarcharUtils.replaceCharVarcharWithStringInSchema(requested.schema).json)
    TableProperties(m.configuration).validate()
    ChangeDataFeed.checkColumns(log.tablePath.toString, m)
    val previous = readSnapshot.map(_.metadata)
    if (SiltSettings.RetentionCompatibilityCheck(spark)) {
      TableProperties.checkRetentions(log.tablePath.toString, previous.map(_.configuration).getOrElse(Map.empty), m.configuration)
    }
    if (!previous.exists(_.schemaString == m.schemaString)) SupportedTypes.check(log.tablePath.toString, m.schema)
    if (!replacingTable) previous.foreach(ColumnMapping.checkModeChange(log.tablePath.toString, _, m))
    val upgrading = !replacingTable && previous.exists(p => !ColumnMapping.of(p).enabled)
    newMetadata = Some(ColumnMapping.assign(m, upgrading))
  }
  private var atCommit = Seq.empty[Metadata => Metadata]
  /** Changes the metadata when the commit is written, from what the write found (identity columns' marks). */
  def updateMetadataAtCommit(f: Metadata => Metadata): Unit = atCommit :+= f

  def updateProtocol(p: Protocol): Unit = newProtocol = Some(p)
  /** Whether this transaction has set a protocol (a new table's, or an upgrade). */
  def protocolUpdated: Boolean = newProtocol.isDefined
  /** Whether this transaction changes the table's metadata or protocol. */
  def metadataChanged: Boolean = newMetadata.isDefined || newProtocol.isDefined

  /** The live files in partitions matching `partitionPredicates`, recorded as read. */
  def filesInPartitions(partitionPredicates: Seq[Expression]): Seq[AddFile] = {
    if (partitionPredicates.isEmpty) readSet = readSet.copy(wholeTable = true)
    else readSet = readSet.copy(partitionPredicates = readSet.partitionPredicates ++ partitionPredicates)
    readSnapshot.map(_.filesWhere(partitionPredicates, timeZone)()).getOrElse(IndexedSeq.empty)
  }

  /**
   * Every live file, recorded as read in full to check each row against a new rule (CHECK
   * constraint, NOT NULL): a concurrent commit adding rows conflicts, even a blind append under
   * WriteSerializable, since its rows were never checked.
   */
  def filesToValidate(): Seq[AddFile] = {
    readSet = readSet.copy(validatesRows = true)
    filesInPartitions(Nil)
  }

  /** The live files of exactly these partitions (by value), recorded as read: what a dynamic overwrite replaces. */
  def filesInPartitionValues(partitions: Set[Map[String, String]]): Seq[AddFile] = {
    // locals, not this transaction's fields: the matcher may be built in Spark's tasks
    val (schema, zone) = (metadata.partitionSchema, timeZone)
    val comparable = new PartitionValues.Comparable(schema, zone)
    val keys = partitions.map(comparable(_))
    readSet = readSet.copy(partitionValues = readSet.partitionValues ++ keys)
    readSnapshot.map(_.filesWhere(Nil, zone)(() => {
      val inTask = new PartitionValues.Comparable(schema, zone)
      a => keys(inTask(a.partitionValues))
    })).getOrElse(IndexedSeq.empty)
  }

  /** Commits `t` with whatever actions the operation commits (an idempotent write's `txn` action). */
  def recordAppTransaction(t: SetTransaction): Unit = appTransaction = Some(t)

  /**
   * Records that the rows matching `condition` were read (None: every row of the table): a
   * concurrent commit adding a file that may hold such a row (by its partition values and
   * statistics) is a conflict. With row-level concurrency, `probe` tests the rows of such files
   * instead: the commit conflicts only if one of them matches.
   */
  def readRows(condition: Option[Expression], probe: Option[RowProbe] = None): Unit =
    readSet = readSet.copy(predicates = readSet.predicates :+ RowRead(condition.getOrElse(Literal.TrueLiteral), probe))

  /**
   * Records that of the files read, this transaction depends on exactly the rows it marks deleted in
   * their deletion vectors (and those it adds): with `spark.silt.rowLevelConcurrency.enabled`, a
   * concurrent commit that deleted other rows of them is rebased on instead of failing this one.
   */
  def readOnlyMarkedRows(mover: Option[RowMover]): Unit = if (SiltSettings.RowLevelConcurrency(spark)) {
    readSet = readSet.copy(onlyMarkedRows = true)
    rowMover = mover
  }
  private var rowMover: Option[RowMover] = None

  /** Records that exactly these files were read: a concurrent removal of any is a conflict. */
  def readFiles(files: Seq[AddFile]): Unit =
    readSet = readSet.copy(files = readSet.files ++ files.map(a => TablePaths.canonical(log.tablePath, a.path)))

  /** Commits `actions` as the next version and returns it. */
  def commit(operationActions: Seq[Action], op: Operation): Long =
    commitGroups(operationActions, Nil, _ => op).map(_.version).get

  /**
   * Commits a transaction that changes no data (OPTIMIZE, REORG) made of independent `groups`
   * (its bins): a group that read a file a concurrent commit removed or gave a new deletion vector
   * yields, and the others commit without it. `op`: the operation, given the groups kept; None
   * when every group yielded and nothing was committed.
   */
  def commitYielding(groups: Seq[YieldingGroup], op: Seq[YieldingGroup] => Operation): Option[YieldedCommit] = {
    require(groups.forall(_.actions.forall {
      case a: AddFile => !a.dataChange
      case r: RemoveFile => !r.dataChange
      case _ => true
    }), "only a transaction that changes no data yields")
    if (groups.isEmpty) None else commitGroups(Nil, groups, op)
  }

  private def commitGroups(common: Seq[Action], groups: Seq[YieldingGroup],
      op: Seq[YieldingGroup] => Operation): Option[YieldedCommit] = {
    require(!committed, "a transaction commits once")
    val statement = op(groups)
    DeltaSessionKeys.refuseAt(spark.conf, Operation.kindsOf(statement), s"${statement.name} on ${log.tablePath}")
    TableProperties.refuseAt(metadata.configuration, Operation.kindsOf(statement), s"${statement.name} on ${log.tablePath}")
    var kept = groups
    val operationActions = common ++ groups.flatMap(_.actions)
    val finished = atCommit.foldLeft(metadata)((m, f) => f(m))
    if (finished != metadata) newMetadata = Some(finished)
    val named = RowTracking.withColumnNames(protocol, metadata)
    if (named ne metadata) newMetadata = Some(named)
    def pendingWith(actions: Seq[Action]) = PendingCommit(log.tablePath.toString, readSnapshot.map(_.metadata), metadata,
      protocol, actions, () => readSnapshot.map(_.files).getOrElse(IndexedSeq.empty))
    val added = TableFeatures.all.flatMap(_.addedActions(pendingWith(operationActions)))
    if (added.nonEmpty) filesToValidate()
    val fixed = common ++ added ++ appTransaction
    var actions = operationActions ++ added ++ appTransaction
    val pending = pendingWith(actions)
    TableFeatures.all.foreach(_.checkCommit(pending))
    checkManifestCompatible(actions)
    def ownRemoves = actions.collect { case r: RemoveFile => TablePaths.canonical(log.tablePath, r.path) }.toSet
    val ownTxns = actions.collect { case t: SetTransaction => t.appId }.toSet
    val ownDomains = actions.collect { case d: DomainMetadata => d.domain }.toSet
    val isBlindAppend = readSet.isEmpty && actions.forall {
      case a: AddFile => a.dataChange
      case _: RemoveFile => false
      case _ => true
    }
    var body = newProtocol.toSeq ++ newMetadata.toSeq ++ actions
    // A commit that changes no data (OPTIMIZE, REORG) only needs what it read to still be there.
    val changesData = metadataChanged || actions.exists {
      case a: AddFile => a.dataChange
      case r: RemoveFile => r.dataChange
      case _ => false
    }
    val level = if (changesData) TableProperties(metadata.configuration).isolationLevel else IsolationLevel.SnapshotIsolation
    val dvFiles = DeletionVectorFiles(spark, log.tablePath)
    val maxCheckedRows = Some(SiltSettings.RowLevelConcurrencyMaxCheckedRows(spark))
      .filter(_ > 0 && SiltSettings.RowLevelConcurrency(spark))
    def checkerNow = new ConflictChecker(readSnapshot.orNull, readSet, ownRemoves, ownTxns, ownDomains, level, timeZone, dvFiles,
      maxCheckedRows)
    var checker = checkerNow
    lazy val marked = new MarkedRows(log.tablePath, actions, dvFiles)
    CommitPause.beforeCommit(log.tablePath, op(kept).name)
    val maxAttempts = SiltSettings.CommitMaxAttempts(spark)
    val backoffMs = SiltSettings.CommitRetryBackoffMs(spark)
    val stamped = TableProperties(metadata.configuration).inCommitTimestamps
    // Turned on by this commit on a table with commits before it: where they begin is recorded.
    val enabling = stamped && readSnapshot.exists(s => !TableProperties(s.metadata.configuration).inCommitTimestamps)
    // Fresh row ids are assigned at each attempt, above the mark of the commits that won before it.
    val assignsRowIds = RowTracking.assigning(protocol, metadata)
    var rowIdMark = readSnapshot.flatMap(s => RowTracking.highWaterMark(s.domains.values))
    var version = readVersion + 1
    var attempt = 1
    var checkedRows = 0L
    while (true) {
      val now = CommitClock.now()
      // strictly after the commit before, even when this machine's clock is behind it
      val inCommit = if (stamped) Some(if (version == 0) now else math.max(now, log.commitTime(version - 1) + 1)) else None
      val stampedBody = if (!enabling) body else body.map {
        case m: Metadata => m.copy(configuration = m.configuration ++ Map(
          TableProperties.InCommitTimestampEnablementVersion.key -> version.toString,
          TableProperties.InCommitTimestampEnablementTimestamp.key -> inCommit.get.toString))
        case other => other
      }
      val attemptBody = if (assignsRowIds) RowTracking.assign(stampedBody, rowIdMark, version) else stampedBody
      val info = CommitInfo(commitInfoJson(op(kept), isBlindAppend, level, inCommit.getOrElse(now), inCommit, checkedRows))
      val lines = (info +: attemptBody).map(ActionCodec.toJson)
      if (log.store.writeIfAbsent(FileNames.commitPath(log.logPath, version), lines)) {
        committed = true
        SiltSettings.LastCommitVersionInSession.record(spark.conf, version)
        CommitPause.afterCommit(log.tablePath)
        lazy val snapshot = log.committed(readSnapshot, version, attemptBody)
        PostCommitHook.runAll(spark, log, version, hooks, snapshot)
        return Some(YieldedCommit(version, kept))
      }
      if (readSnapshot.isEmpty) {
        throw new ConcurrentModificationException(
          s"table ${log.tablePath} was created by a concurrent writer; nothing was committed. Retry the operation.")
      }
      if (attempt >= maxAttempts) {
        throw new ConcurrentModificationException(s"gave up committing to ${log.tablePath} after " +
          s"$attempt attempts (${SiltSettings.CommitMaxAttempts.key}); nothing was committed")
      }
      val winning = log.readCommit(version)
      if (groups.nonEmpty) {
        val gone = winning.collect { case r: RemoveFile => TablePaths.canonical(log.tablePath, r.path) }.toSet
        val (lost, stay) = kept.partition(_.reads.exists(a => gone(TablePaths.canonical(log.tablePath, a.path))))
        if (lost.nonEmpty) {
          if (stay.isEmpty) return None
          kept = stay
          readSet = readSet.copy(files = stay.flatMap(_.reads).map(a => TablePaths.canonical(log.tablePath, a.path)).toSet)
          actions = fixed ++ stay.flatMap(_.actions)
          body = newProtocol.toSeq ++ newMetadata.toSeq ++ actions
          checker = checkerNow
        }
      }
      val rebases = checker.check(version, winning, Some(marked).filter(_ => readSet.onlyMarkedRows))
      checkedRows += checker.checkedRows
      if (rebases.nonEmpty) {
        marked.rebase(rebases, rowMover, dvFiles, System.currentTimeMillis(),
          what => throw new ConcurrentDeleteReadException(checker.message(version, winning, what)))
        actions = marked.applyTo(actions)
        body = newProtocol.toSeq ++ newMetadata.toSeq ++ actions
        // Files the marks moved to are now read, and removed by this transaction: their changes are checked.
        readSet = readSet.copy(files = readSet.files ++ marked.paths)
        checker = checkerNow
      }
      RowTracking.highWaterMark(winning.collect { case d: DomainMetadata => d }).foreach(m => rowIdMark = Some(m))
      OptimisticTransaction.backoff(backoffMs, attempt)
      version += 1
      attempt += 1
    }
    throw new IllegalStateException("unreachable")
  }

  /**
   * A table that keeps symlink manifests takes no deletion vectors (manifest readers would return
   * the deleted rows): neither new ones, nor files that have them when the property is turned on.
   */
  private def checkManifestCompatible(actions: Seq[Action]): Unit = {
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

  private def commitInfoJson(op: Operation, isBlindAppend: Boolean, level: IsolationLevel, timestamp: Long,
      inCommitTimestamp: Option[Long], checkedRows: Long) = {
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
    o.put("engineInfo", s"Silt/${SiltVersion.Version} Apache-Spark/${spark.version}")
    o.put("txnId", UUID.randomUUID().toString)
    o
  }
}

/** Actions of a transaction that stand or yield together (an OPTIMIZE bin), with the files they read. */
final case class YieldingGroup(reads: Seq[AddFile], actions: Seq[Action])

/** A commit of yielding groups: its version and the groups kept. */
final case class YieldedCommit(version: Long, kept: Seq[YieldingGroup])

object OptimisticTransaction {
  /** The operation metric counting the rows of concurrent commits' new files a commit read to rule out a conflict. */
  val ConflictCheckedRowsMetric = "numConflictCheckedRows"

  /** Waits before retry number `retry` (from 1): `baseMs` doubled per retry up to 1024 times, less up to half at random. */
  private[txn] def backoff(baseMs: Long, retry: Int): Unit = if (baseMs > 0) {
    val full = if (baseMs >= (Long.MaxValue >> 11)) Long.MaxValue >> 1 else baseMs << math.min(retry - 1, 10)
    Thread.sleep(full - (full * java.util.concurrent.ThreadLocalRandom.current().nextDouble() / 2).toLong)
  }

  /** Starts a transaction on the latest version of the table at `log` (which may not exist yet). */
  def start(spark: SparkSession, log: TableLog): OptimisticTransaction =
    new OptimisticTransaction(log, log.latestOption(), spark)
}
