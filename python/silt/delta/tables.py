"""``DeltaTable`` and its merge and optimize builders with delta-spark's names, arguments and return
types, on :class:`silt.SiltTable` (the table builder: :mod:`silt.delta.builders`, also importable from here).

    from silt.delta.tables import DeltaTable

    dt = DeltaTable.forPath(spark, "/data/events")
    (dt.alias("t").merge(updates.alias("s"), "t.id = s.id")
       .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple, Union

from silt.delta import checks
from silt.delta.builders import DeltaTableBuilder, IdentityGenerator, _flatten
from silt.errors import UnsupportedOptionException
from silt.merge import MergeBuilder
from silt.table import OptimizeBuilder, SiltTable, _quote_ident

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession
    from pyspark.sql.types import DataType, StructField, StructType

ExpressionOrColumn = Union[str, "Column"]
ColumnMapping = Mapping[str, ExpressionOrColumn]


class DeltaTable:
    """A table, as delta-spark's ``DeltaTable``: by path (``forPath``) or by name (``forName``)."""

    def __init__(self, table: SiltTable):
        self._table = table

    # ------------------------------------------------------------------ opening

    @classmethod
    def forPath(cls, sparkSession: "SparkSession", path: str,
                hadoopConf: Dict[str, str] = {}) -> "DeltaTable":  # noqa: B006 - delta-spark's default
        """The table at ``path``; raises NotADeltaTableException if there is none. ``hadoopConf``: Hadoop
        file-system settings (keys ``fs.*`` and ``dfs.*``) of this table alone, applied to its log and
        files in every operation (a classic session only)."""
        return cls(SiltTable.for_path(sparkSession, path, hadoopConf))

    @classmethod
    def forName(cls, sparkSession: "SparkSession", tableOrViewName: str) -> "DeltaTable":
        """The catalog table ``tableOrViewName``."""
        return cls(SiltTable.for_name(sparkSession, tableOrViewName))

    @classmethod
    def isDeltaTable(cls, sparkSession: "SparkSession", identifier: str) -> bool:
        """Whether the path ``identifier`` holds a Delta table."""
        return SiltTable.is_silt_table(sparkSession, identifier)

    # ------------------------------------------------------------------ reading

    def toDF(self) -> "DataFrame":
        """The table's current rows."""
        return self._table.to_df()

    def alias(self, aliasName: str) -> "DeltaTable":
        """The table under an alias, which a merge condition names it by."""
        return DeltaTable(self._table.alias(aliasName))

    def history(self, limit: Optional[int] = None) -> "DataFrame":
        """The commits, newest first."""
        return self._table.history(limit)

    def detail(self) -> "DataFrame":
        """One row describing the table."""
        return self._table.detail()

    # ------------------------------------------------------------------ changing rows

    def delete(self, condition: Optional[ExpressionOrColumn] = None) -> None:
        """Deletes the rows matching ``condition`` (every row without one)."""
        self._table.delete(condition)

    def update(self, condition: Optional[ExpressionOrColumn] = None, set: Optional[ColumnMapping] = None) -> None:
        """Sets columns (``set``: column -> expression) where ``condition`` holds (everywhere without one)."""
        self._table.update(condition, set)

    def merge(self, source: "DataFrame", condition: ExpressionOrColumn) -> "DeltaMergeBuilder":
        """Starts a MERGE of ``source`` into the table; the sides are named by their aliases
        (``DeltaTable.alias``, ``DataFrame.alias``)."""
        from silt.expressions import _check_merge
        _check_merge(source, condition)
        builder = self._table.merge(source, condition, source_alias=_alias_of(source), target_alias=None)
        return DeltaMergeBuilder(builder)

    # ------------------------------------------------------------------ maintenance

    def vacuum(self, retentionHours: Optional[float] = None) -> "DataFrame":
        """Deletes files the table no longer needs and older than the retention; an empty DataFrame, as Delta's."""
        self._table.vacuum(retentionHours)
        return self._table._spark.range(0).drop("id")

    def optimize(self) -> "DeltaOptimizeBuilder":
        """Starts an OPTIMIZE."""
        return DeltaOptimizeBuilder(self._table.optimize())

    def restoreToVersion(self, version: int) -> "DataFrame":
        """Makes the table's content that of an earlier version."""
        checks.verify_int(version, "version")
        return self._table.restore_to_version(version)

    def restoreToTimestamp(self, timestamp: str) -> "DataFrame":
        """Makes the table's content that of the version current at ``timestamp``."""
        checks.verify_str(timestamp, "timestamp")
        return self._table.restore_to_timestamp(timestamp)

    def upgradeTableProtocol(self, readerVersion: int, writerVersion: int) -> None:
        """Raises the protocol to at least these versions (never lowers it)."""
        for name, value in (("readerVersion", readerVersion), ("writerVersion", writerVersion)):
            if not isinstance(value, int):
                raise ValueError("The %s needs to be an integer but got '%s'." % (name, type(value)))
        self._table.upgrade_protocol(readerVersion, writerVersion)

    def addFeatureSupport(self, featureName: str) -> None:
        """Adds a table feature to the protocol."""
        checks.verify_str(featureName, "featureName")
        self._table.add_feature(featureName)

    def dropFeatureSupport(self, featureName: str, truncateHistory: Optional[bool] = None) -> None:
        """Drops a table feature from the protocol (``ALTER TABLE … DROP FEATURE``)."""
        checks.verify_str(featureName, "featureName")
        if truncateHistory is not None:
            checks.verify_bool(truncateHistory, "truncateHistory")
        self._table.drop_feature(featureName, bool(truncateHistory))

    def generate(self, mode: str) -> None:
        """Writes the manifests of ``mode`` (``"symlink_format_manifest"``)."""
        self._table.generate(mode)

    def clone(self, target: str, isShallow: bool = False, replace: bool = False,
              properties: Optional[Dict[str, str]] = None) -> "DeltaTable":
        """A shallow clone of the latest version at ``target`` (a path or a table name)."""
        checks.verify_clone(target, isShallow, replace, properties)
        return DeltaTable(self._table.clone(target, replace=replace, properties=_shallow(isShallow, properties)))

    def cloneAtVersion(self, version: int, target: str, isShallow: bool = False, replace: bool = False,
                       properties: Optional[Dict[str, str]] = None) -> "DeltaTable":
        """A shallow clone of ``version`` at ``target``."""
        checks.verify_clone(target, isShallow, replace, properties, version=version)
        return DeltaTable(self._table.clone(target, version=version, replace=replace,
                                            properties=_shallow(isShallow, properties)))

    def cloneAtTimestamp(self, timestamp: str, target: str, isShallow: bool = False, replace: bool = False,
                         properties: Optional[Dict[str, str]] = None) -> "DeltaTable":
        """A shallow clone of the version current at ``timestamp`` at ``target``."""
        checks.verify_clone(target, isShallow, replace, properties, timestamp)
        return DeltaTable(self._table.clone(target, timestamp=timestamp, replace=replace,
                                            properties=_shallow(isShallow, properties)))

    @classmethod
    def convertToDelta(cls, sparkSession: "SparkSession", identifier: str,
                       partitionSchema: Optional[Union[str, "StructType"]] = None) -> "DeltaTable":
        """Makes the Parquet table ``identifier`` (``parquet.`/path` `` or a catalog name) a table in place."""
        schema = partitionSchema if partitionSchema is None or isinstance(partitionSchema, str) else \
            ", ".join(f"{_quote_ident(f.name)} {f.dataType.simpleString()}" for f in partitionSchema.fields)
        return cls(SiltTable.convert_to_delta(sparkSession, identifier, schema))

    # ------------------------------------------------------------------ creating

    @classmethod
    def create(cls, sparkSession: Optional["SparkSession"] = None) -> "DeltaTableBuilder":
        """A builder of ``CREATE TABLE`` (fails if the table exists)."""
        return DeltaTableBuilder(_session(sparkSession), "CREATE TABLE")

    @classmethod
    def createIfNotExists(cls, sparkSession: Optional["SparkSession"] = None) -> "DeltaTableBuilder":
        """A builder of ``CREATE TABLE IF NOT EXISTS``."""
        return DeltaTableBuilder(_session(sparkSession), "CREATE TABLE IF NOT EXISTS")

    @classmethod
    def replace(cls, sparkSession: Optional["SparkSession"] = None) -> "DeltaTableBuilder":
        """A builder of ``REPLACE TABLE`` (fails if the table does not exist)."""
        return DeltaTableBuilder(_session(sparkSession), "REPLACE TABLE")

    @classmethod
    def createOrReplace(cls, sparkSession: Optional["SparkSession"] = None) -> "DeltaTableBuilder":
        """A builder of ``CREATE OR REPLACE TABLE``."""
        return DeltaTableBuilder(_session(sparkSession), "CREATE OR REPLACE TABLE")


def _shallow(isShallow: bool, properties: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The clone's properties; a deep clone (a copy of the files) is refused, naming it."""
    if not isShallow:
        raise UnsupportedOptionException("DEEP CLONE: Silt makes shallow clones only (isShallow=True), which copy no "
                                         "data; copy the rows with CREATE TABLE … AS SELECT instead")
    return properties


def _session(spark: Optional["SparkSession"]) -> "SparkSession":
    if spark is not None:
        return spark
    from pyspark.sql import SparkSession
    active = SparkSession.getActiveSession()
    if active is None:
        raise ValueError("no SparkSession: pass one, or create it first")
    return active


def _alias_of(df: "DataFrame") -> Optional[str]:
    """The name a DataFrame's columns are qualified by, if any: its alias (``df.alias("s")``) or the
    table it reads (``spark.table("updates")``), found in its plan through the operators above it
    (a classic or a Spark Connect DataFrame)."""
    plan: Any = getattr(df, "_plan", None)
    if plan is not None and hasattr(plan, "_child"):  # Spark Connect: the client's plan objects
        while plan is not None:
            if type(plan).__name__ == "SubqueryAlias":
                return str(plan._alias)
            if type(plan).__name__ == "Read":
                return _last_part(str(plan.table_name))
            plan = getattr(plan, "_child", None)
        return None
    node = df._jdf.queryExecution().analyzed()
    for _ in range(100):
        if node.nodeName() == "SubqueryAlias":
            return str(node.alias())
        if node.children().size() != 1:
            return None
        node = node.children().head()
    return None


def _last_part(name: str) -> str:
    """`updates` of `spark_catalog.default.updates` (backquoted parts kept whole)."""
    parts, current, quoted = [], "", False
    for ch in name:
        if ch == "`":
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    return current


class DeltaMergeBuilder:
    """The WHEN clauses of a merge, in delta-spark's names; ``execute()`` runs it."""

    def __init__(self, builder: MergeBuilder):
        self._builder = builder

    @staticmethod
    def _required(value: Optional[ColumnMapping], name: str, method: str) -> ColumnMapping:
        from silt.expressions import _check_mapping
        _check_mapping(value, f"'{name}' in {method}")
        assert value is not None
        return value

    def whenMatchedUpdate(self, condition: Optional[ExpressionOrColumn] = None,
                          set: Optional[ColumnMapping] = None) -> "DeltaMergeBuilder":
        """Updates matched target rows: ``set`` maps columns to expressions."""
        self._builder.when_matched_update(self._required(set, "set", "whenMatchedUpdate"), condition)
        return self

    def whenMatchedUpdateAll(self, condition: Optional[ExpressionOrColumn] = None) -> "DeltaMergeBuilder":
        """Updates every column of matched target rows from the source."""
        self._builder.when_matched_update_all(condition)
        return self

    def whenMatchedDelete(self, condition: Optional[ExpressionOrColumn] = None) -> "DeltaMergeBuilder":
        """Deletes matched target rows."""
        self._builder.when_matched_delete(condition)
        return self

    def whenNotMatchedInsert(self, condition: Optional[ExpressionOrColumn] = None,
                             values: Optional[ColumnMapping] = None) -> "DeltaMergeBuilder":
        """Inserts source rows without a match: ``values`` maps columns to expressions."""
        self._builder.when_not_matched_insert(self._required(values, "values", "whenNotMatchedInsert"), condition)
        return self

    def whenNotMatchedInsertAll(self, condition: Optional[ExpressionOrColumn] = None) -> "DeltaMergeBuilder":
        """Inserts source rows without a match, column by column."""
        self._builder.when_not_matched_insert_all(condition)
        return self

    def whenNotMatchedBySourceUpdate(self, condition: Optional[ExpressionOrColumn] = None,
                                     set: Optional[ColumnMapping] = None) -> "DeltaMergeBuilder":
        """Updates target rows no source row matches."""
        self._builder.when_not_matched_by_source_update(self._required(set, "set", "whenNotMatchedBySourceUpdate"),
                                                        condition)
        return self

    def whenNotMatchedBySourceDelete(self, condition: Optional[ExpressionOrColumn] = None) -> "DeltaMergeBuilder":
        """Deletes target rows no source row matches."""
        self._builder.when_not_matched_by_source_delete(condition)
        return self

    def withSchemaEvolution(self) -> "DeltaMergeBuilder":
        """Adds the source's new columns to the table as the merge writes them."""
        self._builder.with_schema_evolution()
        return self

    def execute(self) -> "DataFrame":
        """Runs the merge; returns its metrics row (num_affected_rows, num_updated_rows, …)."""
        return self._builder.execute()


class DeltaOptimizeBuilder:
    """OPTIMIZE, as delta-spark's builder: ``where`` then ``executeCompaction`` or ``executeZOrderBy``."""

    def __init__(self, builder: OptimizeBuilder):
        self._builder = builder

    def where(self, partitionFilter: str) -> "DeltaOptimizeBuilder":
        """Limits OPTIMIZE to the partitions matching a condition on partition columns."""
        self._builder.where(partitionFilter)
        return self

    def executeCompaction(self) -> "DataFrame":
        """Compacts small files (clusters what is not clustered yet on a clustered table)."""
        return self._builder.execute_compaction()

    def executeZOrderBy(self, *cols: Union[str, List[str], Tuple[str, ...]]) -> "DataFrame":
        """Rewrites the selected files clustered along a Z-order curve of ``cols``."""
        columns = _flatten(cols)
        for c in columns:
            if type(c) is not str:
                raise TypeError("Z-order column must be str. Found %s with type %s" % (str(c), str(type(c))))
        return self._builder.execute_zorder_by(*columns)


__all__ = ["DeltaTable", "DeltaMergeBuilder", "DeltaOptimizeBuilder", "DeltaTableBuilder", "IdentityGenerator"]
