package io.silt.txn

import io.silt.config.SiltSettings
import io.silt.actions._
import io.silt.features._
import org.apache.spark.sql.catalyst.util.CharVarcharUtils
import io.silt.log._
import io.silt.partition.PartitionValues
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}

/**
 * One optimistic transaction: reads a snapshot, records what it read, and commits the next
 * version only if no concurrent commit changed what it read (the commit's stages: [[StagedCommit]]).
 * Blind appends are retried on top of concurrent commits; a real conflict raises
 * ConcurrentModificationException.
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
    val plain = if (!CharVarcharUtils.hasCharVarchar(requested.schema)) requested
      else requested.copy(schemaString = CharVarcharUtils.replaceCharVarcharWithStringInSchema(requested.schema).json)
    val previous = readSnapshot.map(_.metadata)
    val m = if (previous.isEmpty || replacingTable) TableFeatures.withImpliedProperties(plain) else plain
    TableProperties(m.configuration).validate()
    ChangeDataFeed.checkColumns(log.tablePath.toString, m)
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
    val finished = atCommit.foldLeft(metadata)((m, f) => f(m))
    val prepared = TableFeatures.all.foldLeft(finished)((m, f) => f.preparedMetadata(protocol, m))
    if (prepared != metadata) newMetadata = Some(prepared)
    val input = CommitInput(log, readSnapshot, spark, hooks, readSet, newProtocol, newMetadata, protocol, metadata,
      appTransaction, rowMover, timeZone, () => committed = true)
    new StagedCommit(input, common, groups, op).run()
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
