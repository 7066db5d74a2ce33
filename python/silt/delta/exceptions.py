"""delta-spark's exception names (``delta.exceptions``) for Silt's errors, so that ``except`` clauses
written for Delta Lake catch what Silt raises."""
from silt.errors import (
    ConcurrentAppendException,
    ConcurrentDeleteDeleteException,
    ConcurrentDeleteReadException,
    ConcurrentModificationException,
    ConcurrentTransactionException,
    MetadataChangedException,
    ProtocolChangedException,
)

# Delta's base class of the concurrent-commit errors.
DeltaConcurrentModificationException = ConcurrentModificationException
# Delta raises this for a conflict none of the specific classes describes; Silt always raises a
# specific one, so the name stands for the base class (every conflict is caught by it).
ConcurrentWriteException = ConcurrentModificationException

__all__ = [
    "DeltaConcurrentModificationException",
    "ConcurrentWriteException",
    "ConcurrentAppendException",
    "ConcurrentDeleteReadException",
    "ConcurrentDeleteDeleteException",
    "ConcurrentTransactionException",
    "MetadataChangedException",
    "ProtocolChangedException",
]
