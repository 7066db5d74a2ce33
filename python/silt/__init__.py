"""Silt: a Delta-protocol table engine for Apache Spark.

    spark = silt.configure(SparkSession.builder.master("local[*]")).getOrCreate()
"""
from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from silt.errors import (
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
    MissingCommitException,
    MissingDataFileException,
    NotADeltaTableException,
    ProtocolChangedException,
    SchemaMismatchException,
    SiltException,
    UnsupportedOptionException,
    UnsupportedTableFeatureException,
    VersionNotFoundException,
)
from silt.table import SiltTable

__version__ = "0.1.0"

__all__ = [
    "configure",
    "jar_path",
    "SiltTable",
    "SiltException",
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
    "MissingCommitException",
    "MissingDataFileException",
    "NotADeltaTableException",
    "SchemaMismatchException",
    "UnsupportedOptionException",
    "UnsupportedTableFeatureException",
    "VersionNotFoundException",
]

EXTENSION = "io.silt.SiltSparkSessionExtension"
CATALOG = "io.silt.catalog.SiltCatalog"

B = TypeVar("B")


def jar_path() -> Path:
    """The engine jar bundled with this package, e.g. for ``spark-submit --jars``."""
    jars = sorted((Path(__file__).parent / "jars").glob("silt-spark_2.13-*.jar"))
    if not jars:
        raise FileNotFoundError(
            "the Silt engine jar is missing from the silt package; build it with `make build`"
        )
    return jars[-1]


def configure(builder: B) -> B:
    """Adds the Silt jar, SQL extension and catalog to a SparkSession builder.

    >>> spark = silt.configure(SparkSession.builder.master("local[2]")).getOrCreate()
    """
    jar = str(jar_path())
    return (
        builder.config("spark.jars", jar)  # type: ignore[attr-defined]
        .config("spark.sql.extensions", EXTENSION)
        .config("spark.sql.catalog.spark_catalog", CATALOG)
    )
