"""Python exceptions with the names of the engine's typed errors.

The engine's error messages read ``[ERROR_CLASS] [ClassName] detail SQLSTATE: xxxxx``;
:func:`translate` turns a PySpark exception carrying such a message into the matching exception
below, with the same error class and SQLSTATE (Delta Lake's, where Delta Lake has an error for the
same failure). This works over Spark Connect too, where only the message travels.
"""
from __future__ import annotations

import re
from typing import Callable, Dict, Optional, TypeVar

T = TypeVar("T")


class SiltException(Exception):
    """Base of all Silt errors; ``str()`` is the engine's message. ``getCondition()`` (``getErrorClass()``)
    and ``getSqlState()`` answer as PySpark's exceptions do."""

    def __init__(self, message: str = "", errorClass: Optional[str] = None, sqlState: Optional[str] = None):
        super().__init__(message)
        self._error_class = errorClass
        self._sql_state = sqlState

    def getCondition(self) -> Optional[str]:
        """The error class: Delta Lake's (``DELTA_CONCURRENT_APPEND``, …) or Silt's own (``SILT_…``)."""
        return self._error_class

    def getErrorClass(self) -> Optional[str]:
        """The error class (PySpark's older name for ``getCondition``)."""
        return self._error_class

    def getSqlState(self) -> Optional[str]:
        """The SQLSTATE of the error class."""
        return self._sql_state

    def getMessageParameters(self) -> Dict[str, str]:
        return {}


class NotADeltaTableException(SiltException):
    """The path or name is not a Delta table."""


class CorruptLogException(SiltException):
    """A file of the Delta log cannot be parsed; the message names it."""


class MissingCommitException(SiltException):
    """The commit versions of the log are not contiguous."""


class UnsupportedTableFeatureException(SiltException):
    """The table needs a protocol version or feature Silt does not support."""


class VersionNotFoundException(SiltException):
    """Time travel to a version or timestamp the table does not have."""


class SchemaMismatchException(SiltException):
    """Written data does not fit the table's schema."""


class ConcurrentModificationException(SiltException):
    """A concurrent commit conflicted; nothing was committed."""


class ConcurrentAppendException(ConcurrentModificationException):
    """A concurrent commit added files that may hold rows this transaction read."""


class ConcurrentDeleteReadException(ConcurrentModificationException):
    """A concurrent commit removed a file this transaction read, or gave it a new deletion vector."""


class ConcurrentDeleteDeleteException(ConcurrentModificationException):
    """A concurrent commit removed a file this transaction removes too."""


class MetadataChangedException(ConcurrentModificationException):
    """A concurrent commit changed the table's metadata (schema, partitioning or properties)."""


class ProtocolChangedException(ConcurrentModificationException):
    """A concurrent commit changed the table's protocol."""


class ConcurrentTransactionException(ConcurrentModificationException):
    """A concurrent commit recorded the same application transaction (txnAppId)."""


class AtomicCommitUnavailableException(SiltException):
    """The table's storage cannot create a commit atomically; see docs/storage.md."""


class UnsupportedSparkVersionException(SiltException):
    """The running Spark is a release Silt has no jar for, or not the one the loaded jar was built for."""


class InvalidTableOperationException(SiltException):
    """The operation is not valid for this table or these arguments."""


class CorruptDeletionVectorException(SiltException):
    """A deletion vector cannot be read or does not match its descriptor; names the DV and data file."""


class MissingDataFileException(SiltException):
    """A data file the table's log lists does not exist; the message names it."""


class ConstraintViolationException(SiltException):
    """A written row violates a NOT NULL or CHECK constraint or a column invariant; nothing was committed."""


class UnsupportedOptionException(SiltException):
    """An option or setting Silt does not implement, or a value it does not accept; the message names it."""



class MissingChangeDataException(SiltException):
    """A change-feed read asks for versions whose changes were not recorded (the change data feed was off)."""


class StreamingSourceException(SiltException):
    """A streaming read of a Silt table cannot go on; the subclasses say why."""


class SourceRowsChangedException(StreamingSourceException):
    """A commit the stream reaches deletes or rewrites rows: set skipChangeCommits, or restart from a later version."""


class SourceSchemaChangedException(StreamingSourceException):
    """The source table's schema changed while the stream read it: restart the query to read the new schema."""


class SourceTableReplacedException(StreamingSourceException):
    """The stream's checkpoint belongs to another table than the one now at the path."""


class CannotVacuumLiteException(SiltException):
    """VACUUM LITE cannot cover its window because the log was cleaned up: run VACUUM FULL."""


class ConvertToDeltaException(SiltException):
    """CONVERT TO DELTA cannot convert the folder as it is (files that are not Parquet, schemas that disagree...)."""


class ManifestWithDeletionVectorsException(SiltException):
    """Symlink manifests cannot list files with deletion vectors: run REORG TABLE ... APPLY (PURGE) first."""


class CommitOutcomeUnknownException(SiltException):
    """A commit's create failed and could not be read back: it may or may not have landed; the message names its txnId."""


class PostCommitHookFailedException(SiltException):
    """The commit succeeded but a step after it failed (its symlink manifests, ...): the message names the version and what to run."""


class FeatureInHistoryException(SiltException):
    """DROP FEATURE ... TRUNCATE HISTORY must wait: the history still holds the feature; run it again later."""

_BY_NAME = {
    cls.__name__: cls
    for cls in (
        NotADeltaTableException,
        CorruptLogException,
        MissingCommitException,
        UnsupportedTableFeatureException,
        VersionNotFoundException,
        SchemaMismatchException,
        ConcurrentModificationException,
        ConcurrentAppendException,
        ConcurrentDeleteReadException,
        ConcurrentDeleteDeleteException,
        MetadataChangedException,
        ProtocolChangedException,
        ConcurrentTransactionException,
        AtomicCommitUnavailableException,
        InvalidTableOperationException,
        CorruptDeletionVectorException,
        MissingDataFileException,
        ConstraintViolationException,
        UnsupportedOptionException,
        MissingChangeDataException,
        StreamingSourceException,
        SourceRowsChangedException,
        SourceSchemaChangedException,
        SourceTableReplacedException,
        UnsupportedSparkVersionException,
        CannotVacuumLiteException,
        ConvertToDeltaException,
        ManifestWithDeletionVectorsException,
        FeatureInHistoryException,
        PostCommitHookFailedException,
        CommitOutcomeUnknownException,
    )
}
_TAG = re.compile(r"(?:\[([A-Z][A-Z0-9_.]*)\] )?\[(\w+Exception)\] ([^\n]*?)(?: SQLSTATE: (\w{5}))?$", re.M)


def translate(error: BaseException) -> Optional[SiltException]:
    """The Silt exception an engine error stands for, or None if it is not one: ``raise translate(e) or e``."""
    if isinstance(error, SiltException):
        return error
    match = _TAG.search(str(error))
    if match and match.group(2) in _BY_NAME:
        return _BY_NAME[match.group(2)](match.group(3), match.group(1), match.group(4))
    return None


def reraise(fn: Callable[[], T]) -> T:
    """Runs ``fn``; a Silt engine error is re-raised as its Python exception."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - translated or re-raised as is
        silt_error = translate(e)
        if silt_error is None:
            raise
        raise silt_error from e
