package io.silt.errors

/**
 * The root of Silt's typed errors. Each carries an error class and SQLSTATE (Delta Lake's, where
 * Delta Lake has an error for the same failure: code that catches Delta's errors tests these), and
 * its message reads `[ERROR_CLASS] [ClassName] detail SQLSTATE: xxxxx`: Python (also over Spark
 * Connect, where only the message travels) maps `[ClassName]` to the exception of the same name.
 */
abstract class SiltException(detail: String, cause: Throwable = null)
    extends RuntimeException(null, cause) with ThrowableWithCondition {
  /** This error's class and SQLSTATE. */
  def errorClass: ErrorClass

  /** The message without its tags: what failed and what to do. */
  def detailMessage: String = detail

  override def getMessage: String = s"[${errorClass.name}] [${getClass.getSimpleName}] $detail SQLSTATE: ${errorClass.sqlState}"
  protected def conditionName: String = errorClass.name
  override def getErrorClass: String = errorClass.name
  override def getSqlState: String = errorClass.sqlState
  override def getMessageParameters: java.util.Map[String, String] = java.util.Collections.emptyMap()
}

/** The path holds no `_delta_log` with commits. */
class NotADeltaTableException(val path: String, reason: String = "")
    extends SiltException(s"$path is not a Delta table: no commits found under $path/_delta_log" +
      (if (reason.isEmpty) "" else s" ($reason)")) {
  def errorClass: ErrorClass = ErrorClass.DeltaMissingTable
}

/** A log file (commit, checkpoint, `_last_checkpoint`) cannot be parsed. */
class CorruptLogException(val file: String, detail: String, cause: Throwable = null,
    val errorClass: ErrorClass = ErrorClass.CorruptLog) extends SiltException(s"corrupt Delta log file $file: $detail", cause) {
  /** For Java callers, which do not see Scala's default arguments. */
  def this(file: String, detail: String, cause: Throwable) = this(file, detail, cause, ErrorClass.CorruptLog)
}

/** The commit versions of a log are not contiguous. */
class MissingCommitException(val tablePath: String, val missing: Long, detail: String)
    extends SiltException(s"missing commit version $missing in $tablePath/_delta_log: $detail " +
      "(versions must be contiguous)") {
  def errorClass: ErrorClass = ErrorClass.VersionsNotContiguous
}

/** The table needs a protocol version or table feature that Silt does not support. */
class UnsupportedTableFeatureException(val tablePath: String, val features: Seq[String], detail: String,
    forWrite: Boolean = false)
    extends SiltException(s"table $tablePath requires unsupported ${features.mkString(", ")}: $detail") {
  def errorClass: ErrorClass = if (forWrite) ErrorClass.UnsupportedFeaturesForWrite else ErrorClass.UnsupportedFeaturesForRead
}

/** Time travel to a version or timestamp the table does not have. */
class VersionNotFoundException(detail: String, val errorClass: ErrorClass = ErrorClass.VersionNotFound)
    extends SiltException(detail)

/** The data written does not match the table's schema. */
class SchemaMismatchException(detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.MetadataMismatch
}

/**
 * A concurrent commit changed what this transaction read; nothing was committed. The subclasses
 * (Delta Lake's names) say which check failed.
 */
class ConcurrentModificationException(detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.ConcurrentWrite
}

/** A concurrent commit added files that may hold rows this transaction read (its condition, partitions or the whole table). */
class ConcurrentAppendException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.ConcurrentAppend
}

/** A concurrent commit removed a file this transaction read, or gave it a new deletion vector. */
class ConcurrentDeleteReadException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.ConcurrentDeleteRead
}

/** A concurrent commit removed a file this transaction removes too. */
class ConcurrentDeleteDeleteException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.ConcurrentDeleteDelete
}

/** A concurrent commit changed the table's metadata (schema, partitioning or properties). */
class MetadataChangedException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.MetadataChanged
}

/** A concurrent commit changed the table's protocol. */
class ProtocolChangedException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.ProtocolChanged
}

/** A concurrent commit recorded the same application transaction (txnAppId) as this one. */
class ConcurrentTransactionException(detail: String) extends ConcurrentModificationException(detail) {
  override def errorClass: ErrorClass = ErrorClass.ConcurrentTransaction
}

/** The table's storage cannot create a commit atomically, so committing could silently lose another writer's commit. */
class AtomicCommitUnavailableException(val path: String, detail: String)
    extends SiltException(s"cannot commit $path safely: $detail") {
  def errorClass: ErrorClass = ErrorClass.AtomicCommitUnavailable
}

/** An operation that is not valid on this table or with these arguments. */
class InvalidTableOperationException(detail: String, cause: Throwable = null,
    val errorClass: ErrorClass = ErrorClass.InvalidTableOperation) extends SiltException(detail, cause) {
  /** For Java callers, which do not see Scala's default arguments. */
  def this(detail: String, cause: Throwable) = this(detail, cause, ErrorClass.InvalidTableOperation)
}

/**
 * A commit's create failed and the file could not be read back, so whether it landed is unknown:
 * neither "committed" nor "failed" can be said. The message names the file and the commit's txnId,
 * which DESCRIBE HISTORY shows if it landed.
 */
class CommitOutcomeUnknownException(val file: String, val txnId: Option[String], why: String, cause: Throwable)
    extends SiltException(s"the commit $file may or may not have been written: its create failed and it could not be " +
      s"read back ($why). Before retrying the operation, read that version's commitInfo (DESCRIBE HISTORY): if its " +
      s"txnId is ${txnId.getOrElse("(none)")}, the operation was committed", cause) {
  def errorClass: ErrorClass = ErrorClass.CommitOutcomeUnknown
}

/**
 * A commit succeeded but a step after it (`hook`) failed: the version stands, and `remedy` says what
 * to run to do that step's work again.
 */
class PostCommitHookFailedException(val tablePath: String, val version: Long, val hook: String, remedy: String,
    cause: Throwable) extends SiltException(s"Committing to the Delta table version $version succeeded but error " +
      s"while executing post-commit hook $hook: ${SiltException.describe(cause)}. The " +
      s"commit stands (table $tablePath); $remedy", cause) {
  def errorClass: ErrorClass = ErrorClass.PostCommitHookFailed
}

/** A deletion vector cannot be read or does not match its descriptor; names the DV and the data file. */
class CorruptDeletionVectorException(val dataFile: String, val dv: String, detail: String, cause: Throwable = null)
    extends SiltException(s"deletion vector $dv of data file $dataFile: $detail", cause) {
  def errorClass: ErrorClass = ErrorClass.CorruptDeletionVector
}

/** A data file the table's log lists is gone (deleted outside Silt, or by a VACUUM with too short a retention). */
class MissingDataFileException(val file: String, cause: Throwable = null)
    extends SiltException(s"data file $file is listed in the table's log but does not exist; it was deleted " +
      "outside Silt or by a VACUUM with too short a retention (RESTORE an older version or remove the file from the log)", cause) {
  def errorClass: ErrorClass = ErrorClass.FileNotFound
}

/** A written row violates a NOT NULL or CHECK constraint (or a column invariant); nothing was committed. */
class ConstraintViolationException(val constraint: String, detail: String, notNull: Boolean = false)
    extends SiltException(detail) {
  def errorClass: ErrorClass = if (notNull) ErrorClass.NotNullConstraintViolated else ErrorClass.CheckConstraintViolated
}

/** The running Spark is not the minor release this Silt jar was built for (each Spark minor has a jar of its own). */
class UnsupportedSparkVersionException(val running: String, val builtFor: String)
    extends SiltException(s"this Silt jar is built for Spark $builtFor, but Spark $running is running: use the jar " +
      s"silt-spark_${running.split('.').take(2).mkString(".")}_2.13 (silt.configure picks it for the installed " +
      "pyspark); Silt supports Spark 4.0 to 4.3") {
  def errorClass: ErrorClass = ErrorClass.UnsupportedSparkVersion
}

/** An option or setting Silt does not implement (or a value it does not accept); names it and what to do. */
class UnsupportedOptionException(val option: String, detail: String, cls: ErrorClass = ErrorClass.UnsupportedOption)
    extends SiltException(detail) {
  def errorClass: ErrorClass = cls
}

/** A change-feed read asks for versions whose changes the table did not record (its change data feed was off). */
class MissingChangeDataException(val tablePath: String, val version: Long, detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.MissingChangeData
}

/** A streaming read of a Silt table cannot go on; the subclasses say why and what to do. */
abstract class StreamingSourceException(detail: String) extends SiltException(detail)

/** A commit the stream reaches deletes or rewrites rows, which a stream of appends cannot carry. */
class SourceRowsChangedException(val tablePath: String, val version: Long, detail: String)
    extends StreamingSourceException(detail) {
  def errorClass: ErrorClass = ErrorClass.SourceTableIgnoreChanges
}

/** The source table's schema or partitioning changed while the stream read it; a restart reads the new schema. */
class SourceSchemaChangedException(val tablePath: String, val version: Long, detail: String)
    extends StreamingSourceException(detail) {
  def errorClass: ErrorClass = ErrorClass.SchemaChangedWithVersion
}

/** The stream's offsets belong to another table than the one now at the path (it was deleted and created again). */
class SourceTableReplacedException(val tablePath: String, detail: String) extends StreamingSourceException(detail) {
  def errorClass: ErrorClass = ErrorClass.SourceTableReplaced
}

/** VACUUM LITE cannot see every commit of the window it must cover (the log was cleaned up): VACUUM FULL must run. */
class CannotVacuumLiteException(val tablePath: String, detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.CannotVacuumLite
}

/** A folder cannot be converted to a Delta table as it is; names the files and what to do. */
class ConvertToDeltaException(val path: String, detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.ConvertToDelta
}

/** Symlink manifests cannot list these files: they carry deletion vectors, which manifest readers would ignore. */
class ManifestWithDeletionVectorsException(val tablePath: String, detail: String) extends SiltException(detail) {
  def errorClass: ErrorClass = ErrorClass.GenerateWithDeletionVectors
}

/**
 * DROP FEATURE … TRUNCATE HISTORY cannot lower the protocol yet: the table's history still holds the
 * feature (or, for `checkpointProtection`, the protected versions); run it again once the retention
 * `delta.dropFeatureTruncateHistory.retentionDuration` has passed.
 */
class FeatureInHistoryException(val tablePath: String, val feature: String, detail: String, waiting: Boolean = false)
    extends SiltException(detail) {
  def errorClass: ErrorClass = if (waiting) ErrorClass.FeatureDropWaitForRetention else ErrorClass.FeatureDropHistoryExists
}

object SiltException {
  /** One line saying what `e` is: a Silt error's detail (without its tags), another's first line. */
  def describe(e: Throwable): String = e match {
    case s: SiltException => s.detailMessage
    case other => Option(other.getMessage).map(_.linesIterator.take(1).mkString).filter(_.nonEmpty)
      .getOrElse(other.getClass.getName)
  }

  /** The Silt error at the root of a failure (a task's error arrives wrapped in Spark's job failure), if any. */
  def rootOf(e: Throwable): Option[SiltException] =
    Iterator.iterate(e)(_.getCause).takeWhile(_ != null).take(20).collectFirst { case s: SiltException => s }
}
