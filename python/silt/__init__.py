"""Silt: a Delta-protocol table engine for Apache Spark.

    spark = silt.configure(SparkSession.builder.master("local[*]")).getOrCreate()
"""
from __future__ import annotations

from silt.errors import (
    AtomicCommitUnavailableException,
    ConcurrentAppendException,
    ConcurrentDeleteDeleteException,
    ConcurrentDeleteReadException,
    ConcurrentModificationException,
    ConcurrentTransactionException,
    ConstraintViolationException,
    CorruptDeletionVectorException,
    CorruptLogException,
    InvalidTableOperationException,
    MetadataChangedException,
    MissingChangeDataException,
    MissingCommitException,
    MissingDataFileException,
    NotADeltaTableException,
    ProtocolChangedException,
    SchemaMismatchException,
    SiltException,
    SourceRowsChangedException,
    SourceSchemaChangedException,
    SourceTableReplacedException,
    CannotVacuumLiteException,
    ConvertToDeltaException,
    ManifestWithDeletionVectorsException,
    FeatureInHistoryException,
    PostCommitHookFailedException,
    CommitOutcomeUnknownException,
    StreamingSourceException,
    UnsupportedOptionException,
    UnsupportedSparkVersionException,
    UnsupportedTableFeatureException,
    VersionNotFoundException,
)
from silt.error_conversion import install as _install_error_conversion
from silt.session import CATALOG, EXTENSION, configure, jar_path, session_settings
from silt.table import SiltTable

__version__ = "0.1.0"

__all__ = [
    "configure",
    "jar_path",
    "session_settings",
    "SiltTable",
    "SiltException",
    "AtomicCommitUnavailableException",
    "ConcurrentModificationException",
    "ConcurrentAppendException",
    "ConcurrentDeleteReadException",
    "ConcurrentDeleteDeleteException",
    "ConcurrentTransactionException",
    "MetadataChangedException",
    "ProtocolChangedException",
    "ConstraintViolationException",
    "CorruptDeletionVectorException",
    "CorruptLogException",
    "InvalidTableOperationException",
    "MissingChangeDataException",
    "MissingCommitException",
    "MissingDataFileException",
    "NotADeltaTableException",
    "SchemaMismatchException",
    "StreamingSourceException",
    "SourceRowsChangedException",
    "SourceSchemaChangedException",
    "SourceTableReplacedException",
    "CannotVacuumLiteException",
    "ConvertToDeltaException",
    "ManifestWithDeletionVectorsException",
    "FeatureInHistoryException",
    "PostCommitHookFailedException",
    "CommitOutcomeUnknownException",
    "UnsupportedOptionException",
    "UnsupportedSparkVersionException",
    "UnsupportedTableFeatureException",
    "VersionNotFoundException",
]

_install_error_conversion()
