package io.silt.errors

/** An error class and its SQLSTATE, as `SparkThrowable` reports them (`getCondition`, `getSqlState`). */
final case class ErrorClass(name: String, sqlState: String)

/**
 * The error class of each of Silt's typed errors: Delta Lake's (its name and SQLSTATE) where Delta
 * Lake raises an error for the same failure, so that code catching Delta's errors by class runs
 * unchanged; Silt's own (`SILT_…`) where Delta Lake has none.
 */
object ErrorClass {
  private def delta(name: String, sqlState: String) = ErrorClass(s"DELTA_$name", sqlState)
  private def silt(name: String, sqlState: String) = ErrorClass(s"SILT_$name", sqlState)

  val DeltaMissingTable: ErrorClass = delta("MISSING_DELTA_TABLE", "42P01")
  val VersionsNotContiguous: ErrorClass = delta("VERSIONS_NOT_CONTIGUOUS", "KD00C")
  val UnsupportedFeaturesForRead: ErrorClass = delta("UNSUPPORTED_FEATURES_FOR_READ", "56038")
  val UnsupportedFeaturesForWrite: ErrorClass = delta("UNSUPPORTED_FEATURES_FOR_WRITE", "56038")
  val VersionNotFound: ErrorClass = delta("VERSION_NOT_FOUND", "22003")
  val TimestampBeforeFirstCommit: ErrorClass = delta("TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION", "42816")
  val TimestampAfterLatestCommit: ErrorClass = delta("TIMESTAMP_GREATER_THAN_COMMIT", "42816")
  val UnsupportedNestedFieldInUpdate: ErrorClass = delta("UNSUPPORTED_NESTED_FIELD_IN_UPDATE", "0AKDC")
  val UnsupportedSubquery: ErrorClass = delta("UNSUPPORTED_SUBQUERY", "0AKDC")
  val ConflictSetColumn: ErrorClass = delta("CONFLICT_SET_COLUMN", "42701")
  val UnknownConfiguration: ErrorClass = delta("UNKNOWN_CONFIGURATION", "F0000")
  val TimeTravelBeyondRetention: ErrorClass = delta("UNSUPPORTED_TIME_TRAVEL_BEYOND_DELETED_FILE_RETENTION_DURATION", "0AKDC")
  val MetadataMismatch: ErrorClass = delta("METADATA_MISMATCH", "42KDG")
  val ConcurrentWrite: ErrorClass = delta("CONCURRENT_WRITE", "2D521")
  val ConcurrentAppend: ErrorClass = delta("CONCURRENT_APPEND", "2D521")
  val ConcurrentDeleteRead: ErrorClass = delta("CONCURRENT_DELETE_READ", "2D521")
  val ConcurrentDeleteDelete: ErrorClass = delta("CONCURRENT_DELETE_DELETE", "2D521")
  val MetadataChanged: ErrorClass = delta("METADATA_CHANGED", "2D521")
  val ProtocolChanged: ErrorClass = delta("PROTOCOL_CHANGED", "2D521")
  val ConcurrentTransaction: ErrorClass = delta("CONCURRENT_TRANSACTION", "2D521")
  val FileNotFound: ErrorClass = delta("FILE_NOT_FOUND", "42K03")
  val CheckConstraintViolated: ErrorClass = delta("VIOLATE_CONSTRAINT_WITH_VALUES", "23001")
  val NotNullConstraintViolated: ErrorClass = delta("NOT_NULL_CONSTRAINT_VIOLATED", "23502")
  val MissingChangeData: ErrorClass = delta("MISSING_CHANGE_DATA", "KD002")
  val SourceTableIgnoreChanges: ErrorClass = delta("SOURCE_TABLE_IGNORE_CHANGES", "0A000")
  val SchemaChangedWithVersion: ErrorClass = delta("SCHEMA_CHANGED_WITH_VERSION", "KD007")
  val CannotVacuumLite: ErrorClass = delta("CANNOT_VACUUM_LITE", "55000")
  val GenerateWithDeletionVectors: ErrorClass = delta("UNSUPPORTED_GENERATE_WITH_DELETION_VECTORS", "0A000")
  val FeatureDropWaitForRetention: ErrorClass = delta("FEATURE_DROP_WAIT_FOR_RETENTION_PERIOD", "22KD0")
  val FeatureDropHistoryExists: ErrorClass = delta("FEATURE_DROP_HISTORICAL_VERSIONS_EXIST", "22KD0")
  val ForPathUnsupportedHadoopConf: ErrorClass = delta("TABLE_FOR_PATH_UNSUPPORTED_HADOOP_CONF", "0AKDC")
  val InvalidInventorySchema: ErrorClass = delta("INVALID_INVENTORY_SCHEMA", "42000")
  val ShowPartitionsOfUnpartitioned: ErrorClass = delta("SHOW_PARTITION_IN_NON_PARTITIONED_TABLE", "42809")
  val MissingCommitInfo: ErrorClass = delta("MISSING_COMMIT_INFO", "KD004")
  val MissingCommitTimestamp: ErrorClass = delta("MISSING_COMMIT_TIMESTAMP", "KD004")
  val PostCommitHookFailed: ErrorClass = delta("POST_COMMIT_HOOK_FAILED", "2DKD0")
  val ShowPartitionsOfDataColumn: ErrorClass = delta("SHOW_PARTITION_IN_NON_PARTITIONED_COLUMN", "42P10")

  /** A rule of an icebergCompat version broken: Delta Lake's class, with the rule as its subclass. */
  def icebergCompatViolation(sub: String): ErrorClass = delta(s"ICEBERG_COMPAT_VIOLATION.$sub", "KD00E")
  val UniversalFormatViolation: ErrorClass = delta("UNIVERSAL_FORMAT_VIOLATION", "KD00E")

  val CorruptLog: ErrorClass = silt("CORRUPT_LOG", "XXKDS")
  val CorruptDeletionVector: ErrorClass = silt("CORRUPT_DELETION_VECTOR", "XXKDS")
  val AtomicCommitUnavailable: ErrorClass = silt("ATOMIC_COMMIT_UNAVAILABLE", "0A000")
  val InvalidTableOperation: ErrorClass = silt("INVALID_TABLE_OPERATION", "42000")
  val UnsupportedSparkVersion: ErrorClass = silt("UNSUPPORTED_SPARK_VERSION", "0A000")
  val UnsupportedOption: ErrorClass = silt("UNSUPPORTED_OPTION", "0A000")
  val SourceTableReplaced: ErrorClass = silt("SOURCE_TABLE_REPLACED", "KD007")
  val ConvertToDelta: ErrorClass = silt("CONVERT_TO_DELTA", "0AKDC")
  val CommitOutcomeUnknown: ErrorClass = silt("COMMIT_OUTCOME_UNKNOWN", "40003")
}
