"""``SiltTable``: a handle on one Silt table, built on SQL and the DataFrame API."""
from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from silt.errors import reraise

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


def _quote_path(path: str) -> str:
    return "'" + path.replace("\\", "\\\\").replace("'", "\\'") + "'"


class SiltTable:
    """A Silt table, by path or by catalog name.

    >>> SiltTable.for_path(spark, "/data/events").history().show()
    """

    def __init__(self, spark: "SparkSession", path: Optional[str] = None, name: Optional[str] = None):
        self._spark = spark
        self._path = path
        self._name = name

    @classmethod
    def for_path(cls, spark: "SparkSession", path: str) -> "SiltTable":
        """The table at ``path``; raises NotADeltaTableException if there is none."""
        table = cls(spark, path=path)
        table.detail()
        return table

    @classmethod
    def for_name(cls, spark: "SparkSession", name: str) -> "SiltTable":
        """The catalog table ``name``."""
        table = cls(spark, name=name)
        table.detail()
        return table

    @property
    def _ref(self) -> str:
        return _quote_path(self._path) if self._path is not None else str(self._name)

    def to_df(self) -> "DataFrame":
        """The table's current rows. ``SiltTable.for_path(spark, p).to_df().count()``"""
        if self._path is not None:
            return reraise(lambda: self._spark.read.format("silt").load(self._path))
        return reraise(lambda: self._spark.table(str(self._name)))

    def history(self, limit: Optional[int] = None) -> "DataFrame":
        """The commits, newest first. ``t.history(5).show()``"""
        sql = f"DESCRIBE HISTORY {self._ref}" + (f" LIMIT {int(limit)}" if limit is not None else "")
        return reraise(lambda: self._spark.sql(sql))

    def detail(self) -> "DataFrame":
        """One row describing the table. ``t.detail().show()``"""
        return reraise(lambda: self._spark.sql(f"DESCRIBE DETAIL {self._ref}"))
