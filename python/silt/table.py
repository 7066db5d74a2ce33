"""``SiltTable``: a handle on one Silt table, built on SQL and the DataFrame API."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Sequence, Union

from silt.errors import reraise

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession


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

    def files(self) -> "DataFrame":
        """The live data files with statistics and deletion vectors. ``t.files().show()``"""
        return reraise(lambda: self._spark.sql(f"DESCRIBE FILES {self._ref}"))

    def deletion_vectors(self) -> "DataFrame":
        """Per data file with a deletion vector: the descriptor and its deleted row count."""
        from pyspark.sql import functions as F
        return self.files().where(F.col("deletionVector").isNotNull()).select(
            "path", "absolutePath", "deletionVector", "deletedRows", "numRecords")

    def delete(self, condition: Optional[Union[str, "Column"]] = None) -> "DataFrame":
        """Deletes the rows matching ``condition`` (all rows without one). ``t.delete("id = 3")``"""
        sql = f"DELETE FROM {self._dml_ref}" + (f" WHERE {_condition_sql(condition)}" if condition is not None else "")
        return reraise(lambda: self._spark.sql(sql))

    def update(self, condition: Optional[Union[str, "Column"]] = None,
               set: Optional[Mapping[str, Union[str, "Column"]]] = None) -> "DataFrame":
        """Sets columns to SQL expressions where ``condition`` holds. ``t.update("id = 3", {"city": "'Lyon'"})``"""
        if not set:
            raise ValueError("update needs at least one column to set")
        assignments = ", ".join(f"{_quote_ident(k)} = {_condition_sql(v)}" for k, v in set.items())
        sql = f"UPDATE {self._dml_ref} SET {assignments}" + (
            f" WHERE {_condition_sql(condition)}" if condition is not None else "")
        return reraise(lambda: self._spark.sql(sql))

    @property
    def _dml_ref(self) -> str:
        if self._path is not None:
            return "silt.`" + self._path.replace("`", "``") + "`"
        return str(self._name)

    def vacuum(self, retention_hours: Optional[float] = None, dry_run: bool = False) -> "DataFrame":
        """Deletes files the table no longer needs. ``t.vacuum(168)``; ``dry_run=True`` only lists them."""
        sql = f"VACUUM {self._ref}" + (f" RETAIN {float(retention_hours)} HOURS" if retention_hours is not None else "")
        return reraise(lambda: self._spark.sql(sql + (" DRY RUN" if dry_run else "")))

    def checkpoint(self) -> "DataFrame":
        """Writes a checkpoint of the current version now. ``t.checkpoint()``"""
        return reraise(lambda: self._spark.sql(f"CHECKPOINT {self._ref}"))

    def optimize(self) -> "OptimizeBuilder":
        """Starts an OPTIMIZE. ``t.optimize().where("day = 25").execute_zorder_by("city", "id")``"""
        return OptimizeBuilder(self)

    def detail(self) -> "DataFrame":
        """One row describing the table. ``t.detail().show()``"""
        return reraise(lambda: self._spark.sql(f"DESCRIBE DETAIL {self._ref}"))


def _condition_sql(condition: Union[str, "Column"]) -> str:
    if isinstance(condition, str):
        return condition
    # a Column: its SQL text (PySpark renders a Column's expression with str()).
    text = str(condition)
    prefix = "Column<'"
    if text.startswith(prefix) and text.endswith("'>"):
        return text[len(prefix):-2]
    raise TypeError(f"cannot use {condition!r} as a condition; pass a SQL string")


def _quote_ident(name: str) -> str:
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


class OptimizeBuilder:
    """OPTIMIZE of one table: pick partitions with ``where``, then compact or Z-order.

    >>> t.optimize().where("day = 25").execute_compaction().show()
    """

    def __init__(self, table: SiltTable):
        self._table = table
        self._where: Optional[str] = None

    def where(self, partition_condition: Union[str, "Column"]) -> "OptimizeBuilder":
        """Limits OPTIMIZE to the partitions matching a condition on partition columns."""
        self._where = _condition_sql(partition_condition)
        return self

    def _sql(self, zorder: Sequence[str]) -> str:
        sql = f"OPTIMIZE {self._table._ref}"
        if self._where:
            sql += f" WHERE {self._where}"
        if zorder:
            sql += " ZORDER BY (" + ", ".join(_quote_ident(c) for c in zorder) + ")"
        return sql

    def execute_compaction(self) -> "DataFrame":
        """Compacts small files; returns the metrics row (path, metrics)."""
        return reraise(lambda: self._table._spark.sql(self._sql([])))

    def execute_zorder_by(self, *columns: str) -> "DataFrame":
        """Rewrites the selected partitions clustered along a Z-order curve of ``columns``."""
        if not columns:
            raise ValueError("execute_zorder_by needs at least one column")
        return reraise(lambda: self._table._spark.sql(self._sql(columns)))
