"""``SiltTable``: a handle on one Silt table, built on SQL and the DataFrame API."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Optional, Sequence, TypeVar, Union

from silt.errors import SiltException, UnsupportedOptionException, reraise
from silt.expressions import _check_condition, _check_mapping, _check_merge, _data_frame, SlottedSql, _jvm_api, _to_jcolumn, _to_jmap

if TYPE_CHECKING:
    from py4j.java_gateway import JavaObject
    from pyspark.sql import Column, DataFrame, SparkSession

    from silt.merge import MergeBuilder

T = TypeVar("T")


def _quote_path(path: str) -> str:
    return "'" + path.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _is_path(target: str) -> bool:
    """Whether a clone or convert target names a folder (absolute, or with a scheme) rather than a table."""
    return target.startswith("/") or "://" in target or target.startswith("file:")


class SiltTable:
    """A Silt table, by path or by catalog name.

    >>> SiltTable.for_path(spark, "/data/events").history().show()
    """

    def __init__(self, spark: "SparkSession", path: Optional[str] = None, name: Optional[str] = None,
                 alias: Optional[str] = None, hadoop_conf: Optional[Mapping[str, str]] = None):
        self._spark = spark
        self._path = path
        self._name = name
        self._alias = alias
        self._hadoop_conf = dict(hadoop_conf or {})

    def alias(self, name: str) -> "SiltTable":
        """The same table under an alias, which a MERGE condition then names it by. ``t.alias("t").merge(...)``"""
        return SiltTable(self._spark, self._path, self._name, alias=name, hadoop_conf=self._hadoop_conf)

    @classmethod
    def for_path(cls, spark: "SparkSession", path: str, hadoop_conf: Optional[Mapping[str, str]] = None) -> "SiltTable":
        """The table at ``path``; raises NotADeltaTableException if there is none. ``hadoop_conf``: Hadoop
        file-system settings (``fs.*``, ``dfs.*``: a storage account's credentials, say) of this table
        alone, applied to its log and files in every operation (a classic session only).
        ``SiltTable.for_path(spark, "s3a://bucket/t", {"fs.s3a.access.key": key, "fs.s3a.secret.key": secret})``"""
        if not hadoop_conf:
            table = cls(spark, path=path)
            table.detail()
            return table
        jvm = _jvm_api(spark)
        if jvm is None:
            raise UnsupportedOptionException(
                f"hadoopConf ({', '.join(sorted(hadoop_conf))}) over Spark Connect: Silt applies a table's own "
                "Hadoop settings on a classic session only; set them on the server's session (spark.hadoop.<key>)")
        # The JVM API checks the keys (file-system settings only) and opens the table with them.
        reraise(lambda: jvm.io.silt.tables.DeltaTable.forPath(spark._jsparkSession, path, dict(hadoop_conf)))
        return cls(spark, path=path, hadoop_conf=hadoop_conf)

    @classmethod
    def for_name(cls, spark: "SparkSession", name: str) -> "SiltTable":
        """The catalog table ``name``."""
        table = cls(spark, name=name)
        table.detail()
        return table

    @classmethod
    def is_silt_table(cls, spark: "SparkSession", path: str) -> bool:
        """Whether ``path`` holds a Delta table Silt can read. ``SiltTable.is_silt_table(spark, "/data/t")``"""
        try:
            cls.for_path(spark, path)
            return True
        except SiltException:
            return False

    def _sql(self, text: str, collect: bool = False) -> "DataFrame":
        """Runs one of Silt's statements on this table, with the table's own Hadoop settings."""
        def run() -> "DataFrame":
            df = self._spark.sql(text)
            if collect:
                df.collect()
            return df
        return reraise(lambda: self._scoped(run))

    def _scoped(self, run: Callable[[], T]) -> T:
        """``run()`` with this table's Hadoop settings applied to it (Silt's TableFileSystem, on the JVM
        thread that runs this Python thread's calls)."""
        if not self._hadoop_conf or self._path is None:
            return run()
        scope = self._spark._jvm.io.silt.config.TableFileSystem  # type: ignore[union-attr]
        depth = scope.enter(self._spark._jsparkSession, self._path, dict(self._hadoop_conf))
        try:
            return run()
        finally:
            scope.exit(depth)

    @property
    def _ref(self) -> str:
        return _quote_path(self._path) if self._path is not None else str(self._name)

    def to_df(self) -> "DataFrame":
        """The table's current rows. ``SiltTable.for_path(spark, p).to_df().count()``"""
        if self._path is not None:
            return reraise(lambda: self._spark.read.format("silt").options(**self._hadoop_conf).load(self._path))
        return reraise(lambda: self._spark.table(str(self._name)))

    def history(self, limit: Optional[int] = None) -> "DataFrame":
        """The commits, newest first. ``t.history(5).show()``"""
        sql = f"DESCRIBE HISTORY {self._ref}" + (f" LIMIT {int(limit)}" if limit is not None else "")
        return self._sql(sql)

    def changes(self, start: Union[int, str], end: Optional[Union[int, str]] = None) -> "DataFrame":
        """The change data feed from ``start`` to ``end`` (the latest version when None): the table's
        columns with ``_change_type``, ``_commit_version`` and ``_commit_timestamp``. A bound is a
        version (int) or a timestamp (str). ``t.changes(5).where("_change_type = 'delete'")``"""
        def bound(b: Union[int, str]) -> str:
            if isinstance(b, bool) or not isinstance(b, (int, str)):
                raise TypeError(f"a change feed bound is a version (int) or a timestamp (str), not {b!r}")
            return str(int(b)) if isinstance(b, int) else _quote_path(b)
        function, table = (("table_changes_by_path", _quote_path(self._path)) if self._path is not None
                           else ("table_changes", _quote_path(str(self._name))))
        args = ", ".join([table, bound(start)] + ([bound(end)] if end is not None else []))
        return self._sql(f"SELECT * FROM {function}({args})")

    def files(self) -> "DataFrame":
        """The live data files with statistics and deletion vectors. ``t.files().show()``"""
        return self._sql(f"DESCRIBE FILES {self._ref}")

    def deletion_vectors(self) -> "DataFrame":
        """Per data file with a deletion vector: the descriptor and its deleted row count. ``t.deletion_vectors().show()``"""
        from pyspark.sql import functions as F
        return self.files().where(F.col("deletionVector").isNotNull()).select(
            "path", "absolutePath", "deletionVector", "deletedRows", "numRecords")

    def delete(self, condition: Optional[Union[str, "Column"]] = None) -> "DataFrame":
        """Deletes the rows matching ``condition`` (a SQL string or a Column; all rows without one).
        ``t.delete("id = 3")``, ``t.delete(col("id") == 3)``"""
        _check_condition(condition, "'condition'")
        jvm = _jvm_api(self._spark)
        if jvm is not None:
            return reraise(lambda: _data_frame(self._spark, self._jvm_table().executeDelete(
                jvm.scala.Option.apply(_to_jcolumn(condition)))))
        slots = SlottedSql()
        sql = f"DELETE FROM {self._dml_ref}" + (f" WHERE {slots.text(condition)}" if condition is not None else "")
        return slots.run(self._spark, sql)

    def update(self, condition: Optional[Union[str, "Column"]] = None,
               set: Optional[Mapping[str, Union[str, "Column"]]] = None) -> "DataFrame":
        """Sets columns (``set``: name to a SQL string or a Column) where ``condition`` holds.
        ``t.update("id = 3", {"city": "'Lyon'"})``, ``t.update(col("id") == 3, {"city": lit("Lyon")})``"""
        _check_condition(condition, "'condition'")
        _check_mapping(set, "'set'")
        assert set is not None
        jvm = _jvm_api(self._spark)
        if jvm is not None:
            return reraise(lambda: _data_frame(self._spark, self._jvm_table().executeUpdate(
                _to_jmap(self._spark, set), jvm.scala.Option.apply(_to_jcolumn(condition)))))
        slots = SlottedSql()
        assignments = ", ".join(f"{_quote_ident(k)} = {slots.text(v)}" for k, v in set.items())
        sql = f"UPDATE {self._dml_ref} SET {assignments}" + (
            f" WHERE {slots.text(condition)}" if condition is not None else "")
        return slots.run(self._spark, sql)

    def _jvm_table(self) -> "JavaObject":
        """This table in Silt's JVM API (``io.silt.tables.DeltaTable``), under its alias."""
        jvm = _jvm_api(self._spark)
        assert jvm is not None
        table = jvm.io.silt.tables.DeltaTable.unchecked(self._spark._jsparkSession, self._path, self._name,
                                                        dict(self._hadoop_conf))
        return table if self._alias is None else table.alias(self._alias)

    @property
    def _dml_ref(self) -> str:
        if self._path is not None:
            return "silt.`" + self._path.replace("`", "``") + "`"
        return str(self._name)

    def restore_to_version(self, version: int) -> "DataFrame":
        """Makes the table's content that of an earlier version. ``t.restore_to_version(3)``"""
        return self._sql(f"RESTORE TABLE {self._ref} TO VERSION AS OF {int(version)}")

    def restore_to_timestamp(self, timestamp: str) -> "DataFrame":
        """Makes the table's content that of the version current at ``timestamp``. ``t.restore_to_timestamp("2026-11-01")``"""
        return self._sql(f"RESTORE TABLE {self._ref} TO TIMESTAMP AS OF {_quote_path(str(timestamp))}")

    def set_properties(self, properties: Mapping[str, str]) -> "DataFrame":
        """ALTER TABLE … SET TBLPROPERTIES: one commit. ``t.set_properties({"delta.appendOnly": "true"})``"""
        if not properties:
            raise ValueError("set_properties needs at least one property")
        pairs = ", ".join(f"{_quote_path(k)} = {_quote_path(str(v))}" for k, v in properties.items())
        return self._sql(f"ALTER TABLE {self._dml_ref} SET TBLPROPERTIES ({pairs})")

    def upgrade_protocol(self, reader_version: int, writer_version: int) -> "DataFrame":
        """Raises the table's protocol to at least these versions (never lowers it). ``t.upgrade_protocol(1, 3)``"""
        return self.set_properties({"delta.minReaderVersion": str(int(reader_version)),
                                    "delta.minWriterVersion": str(int(writer_version))})

    def add_feature(self, feature: str) -> "DataFrame":
        """Adds a table feature to the protocol (``delta.feature.<name> = supported``). ``t.add_feature("deletionVectors")``"""
        return self.set_properties({f"delta.feature.{feature}": "supported"})

    def drop_feature(self, feature: str, truncate_history: bool = False) -> "DataFrame":
        """Drops a table feature from the protocol (``ALTER TABLE … DROP FEATURE``), after turning it off
        and cleaning up its traces. ``t.drop_feature("deletionVectors")``"""
        suffix = " TRUNCATE HISTORY" if truncate_history else ""
        return self._sql(f"ALTER TABLE {self._ref} DROP FEATURE {_quote_ident(feature)}{suffix}")

    def merge(self, source: "DataFrame", condition: Union[str, "Column"], source_alias: Optional[str] = "source",
              target_alias: Optional[str] = "target") -> "MergeBuilder":
        """Starts a MERGE of ``source`` into the table. An alias of None leaves that side unaliased (the
        table's alias from ``alias()`` is used when it has one).

        >>> t.merge(updates, "target.id = source.id").when_matched_update({"city": "source.city"}).execute()
        """
        _check_merge(source, condition)
        from silt.merge import MergeBuilder
        return MergeBuilder(self, source, condition, source_alias, self._alias or target_alias)

    def vacuum(self, retention_hours: Optional[float] = None, dry_run: bool = False, lite: bool = False) -> "DataFrame":
        """Deletes files the table no longer needs. ``t.vacuum(168)``; ``dry_run=True`` only lists them;
        ``lite=True`` deletes only the files the log says were removed (VACUUM LITE: no listing)."""
        sql = f"VACUUM {self._ref}" + (" LITE" if lite else "") + \
            (f" RETAIN {float(retention_hours)} HOURS" if retention_hours is not None else "")
        return self._sql(sql + (" DRY RUN" if dry_run else ""))

    def generate(self, mode: str = "symlink_format_manifest") -> None:
        """Writes the symlink manifests that Presto, Trino and Athena read. ``t.generate()``"""
        self._sql(f"GENERATE {mode} FOR TABLE {self._ref}", collect=True)

    def clone(self, target: str, version: Optional[int] = None, timestamp: Optional[str] = None,
              replace: bool = False, properties: Optional[Mapping[str, str]] = None) -> "SiltTable":
        """A shallow clone of this table (at ``version`` or ``timestamp``, else the latest) at ``target``, a
        path or a catalog name; ``replace=True`` replaces a table there. ``t.clone("/data/copy", version=3)``"""
        if version is not None and timestamp is not None:
            raise ValueError("clone takes a version or a timestamp, not both")
        as_path = _is_path(target)
        sql = ("CREATE OR REPLACE TABLE " if replace else "CREATE TABLE ") + \
            (_quote_path(target) if as_path else target) + f" SHALLOW CLONE {self._ref}"
        if version is not None:
            sql += f" VERSION AS OF {int(version)}"
        if timestamp is not None:
            sql += f" TIMESTAMP AS OF {_quote_path(str(timestamp))}"
        if properties:
            sql += " TBLPROPERTIES (" + ", ".join(f"{_quote_path(k)} = {_quote_path(str(v))}"
                                                  for k, v in properties.items()) + ")"
        self._sql(sql, collect=True)
        return SiltTable(self._spark, path=target) if as_path else SiltTable(self._spark, name=target)

    @classmethod
    def convert_to_delta(cls, spark: "SparkSession", identifier: str, partition_schema: Optional[str] = None,
                         collect_stats: bool = True) -> "SiltTable":
        """Makes a Parquet folder (``parquet.`/path` ``, or a path) or catalog Parquet table a Silt table in
        place. ``SiltTable.convert_to_delta(spark, "/data/pq", "day INT")``"""
        ref = f"parquet.`{identifier}`" if _is_path(identifier) else identifier
        sql = f"CONVERT TO DELTA {ref}" + ("" if collect_stats else " NO STATISTICS") + \
            (f" PARTITIONED BY ({partition_schema})" if partition_schema else "")
        reraise(lambda: spark.sql(sql).collect())
        path = identifier[len("parquet.`"):-1] if identifier.lower().startswith("parquet.`") else identifier
        if _is_path(identifier) or identifier.lower().startswith("parquet.`"):
            return SiltTable(spark, path=path)
        return SiltTable(spark, name=identifier)

    def checkpoint(self) -> "DataFrame":
        """Writes a checkpoint of the current version now. ``t.checkpoint()``"""
        return self._sql(f"CHECKPOINT {self._ref}")

    def cluster_by(self, *columns: str) -> "DataFrame":
        """Sets the clustering columns (none: ``CLUSTER BY NONE``); nothing is rewritten until OPTIMIZE.
        ``t.cluster_by("city", "day")``"""
        spec = "NONE" if not columns else "(" + ", ".join(_quote_ident(c) for c in columns) + ")"
        return self._sql(f"ALTER TABLE {self._dml_ref} CLUSTER BY {spec}")

    def optimize(self) -> "OptimizeBuilder":
        """Starts an OPTIMIZE. ``t.optimize().where("day = 25").execute_zorder_by("city", "id")``"""
        return OptimizeBuilder(self)

    def detail(self) -> "DataFrame":
        """One row describing the table. ``t.detail().show()``"""
        return self._sql(f"DESCRIBE DETAIL {self._ref}")


def _quote_ident(name: str) -> str:
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


class OptimizeBuilder:
    """OPTIMIZE of one table: pick partitions with ``where``, then compact or Z-order.

    >>> t.optimize().where("day = 25").execute_compaction().show()
    """

    def __init__(self, table: SiltTable):
        self._table = table
        self._where: Optional[str] = None

    def where(self, partition_condition: str) -> "OptimizeBuilder":
        """Limits OPTIMIZE to the partitions matching a SQL condition on partition columns. ``.where("day = 25")``"""
        if type(partition_condition) is not str:
            raise TypeError(f"partitionFilter must be a string (a SQL condition on partition columns), "
                            f"found to be of type {type(partition_condition)}")
        self._where = partition_condition
        return self

    def _sql(self, zorder: Sequence[str], full: bool = False) -> str:
        sql = f"OPTIMIZE {self._table._ref}"
        if self._where:
            sql += f" WHERE {self._where}"
        if zorder:
            sql += " ZORDER BY (" + ", ".join(_quote_ident(c) for c in zorder) + ")"
        if full:
            sql += " FULL"
        return sql

    def execute_compaction(self) -> "DataFrame":
        """Compacts small files (a clustered table: clusters the files not clustered yet); returns the
        metrics row (path, metrics). ``t.optimize().execute_compaction()``"""
        return self._table._sql(self._sql([]))

    def execute_full(self) -> "DataFrame":
        """Reclusters every file of a clustered table (``OPTIMIZE … FULL``). ``t.optimize().execute_full()``"""
        return self._table._sql(self._sql([], full=True))

    def execute_zorder_by(self, *columns: str) -> "DataFrame":
        """Rewrites the selected partitions clustered along a Z-order curve of ``columns``."""
        if not columns:
            raise ValueError("execute_zorder_by needs at least one column")
        return self._table._sql(self._sql(columns))
