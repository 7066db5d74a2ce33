"""``DeltaTable`` and its builders with delta-spark's names, arguments and return types, on
:class:`silt.SiltTable`.

    from silt.delta.tables import DeltaTable

    dt = DeltaTable.forPath(spark, "/data/events")
    (dt.alias("t").merge(updates.alias("s"), "t.id = s.id")
       .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute())
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from silt.delta import checks
from silt.errors import UnsupportedOptionException, reraise
from silt.merge import MergeBuilder
from silt.table import OptimizeBuilder, SiltTable, _quote_ident, _quote_path

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
        """Adds the source's new columns to the table as the merge writes them (Spark 4.1 and later)."""
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


@dataclass
class IdentityGenerator:
    """An identity column's values (delta-spark's ``IdentityGenerator``): ``start``, ``start + step``,
    ... (unique, not always contiguous); ``step`` is not 0, checked when the column is added."""
    start: int = 1
    step: int = 1

    def _sql(self) -> str:
        return f"(START WITH {int(self.start)} INCREMENT BY {int(self.step)})"


class DeltaTableBuilder:
    """CREATE / REPLACE TABLE, as delta-spark's builder: name or location, columns, then ``execute()``."""

    def __init__(self, spark: "SparkSession", statement: str):
        self._spark = spark
        self._statement = statement
        self._name: Optional[str] = None
        self._location: Optional[str] = None
        self._comment: Optional[str] = None
        self._columns: List[str] = []
        self._partitioned: List[str] = []
        self._clustered: List[str] = []
        self._properties: Dict[str, str] = {}

    def tableName(self, identifier: str) -> "DeltaTableBuilder":
        """The catalog name of the table."""
        if type(identifier) is not str:
            checks.type_error("Identifier must be str.", [identifier])
        self._name = identifier
        return self

    def location(self, location: str) -> "DeltaTableBuilder":
        """Where the table is stored (a path table when no name is given)."""
        if type(location) is not str:
            checks.type_error("Location must be str.", [location])
        self._location = location
        return self

    def comment(self, comment: str) -> "DeltaTableBuilder":
        """The table's comment."""
        if type(comment) is not str:
            checks.type_error("Table comment must be str.", [comment])
        self._comment = comment
        return self

    def addColumn(self, colName: str, dataType: Union[str, "DataType"], nullable: bool = True,
                  generatedAlwaysAs: Optional[Union[str, "IdentityGenerator"]] = None,
                  generatedByDefaultAs: Optional["IdentityGenerator"] = None,
                  comment: Optional[str] = None) -> "DeltaTableBuilder":
        """Adds a column (delta-spark's argument order). ``generatedAlwaysAs``: a SQL expression that
        generates it, or an ``IdentityGenerator`` (an identity column whose values writes cannot give);
        ``generatedByDefaultAs``: an ``IdentityGenerator`` (writes may give values)."""
        if type(colName) is not str:
            checks.type_error("Column name must be str.", [colName])
        if type(dataType) is not str and not isinstance(dataType, _data_type_class()):
            checks.type_error("Column data type must be str or DataType.", [dataType])
        if type(nullable) is not bool:
            checks.type_error("Column nullable must be bool.", [nullable])
        if generatedAlwaysAs is not None and generatedByDefaultAs is not None:
            raise ValueError("generatedByDefaultAs and generatedAlwaysAs cannot both be set.",
                             [generatedByDefaultAs, generatedAlwaysAs])
        if generatedAlwaysAs is not None and not isinstance(generatedAlwaysAs, (str, IdentityGenerator)):
            checks.type_error("Generated always as expression must be str or IdentityGenerator.", [generatedAlwaysAs])
        if generatedByDefaultAs is not None and not isinstance(generatedByDefaultAs, IdentityGenerator):
            checks.type_error("Generated by default expression must be IdentityGenerator.", [generatedByDefaultAs])
        for identity in (generatedAlwaysAs, generatedByDefaultAs):
            if isinstance(identity, IdentityGenerator) and identity.step == 0:
                raise ValueError("Column identity generation requires step to be non-zero.")
        if comment is not None and type(comment) is not str:
            checks.type_error("Column comment must be str.", [comment])
        type_sql = dataType if isinstance(dataType, str) else dataType.simpleString()
        col = f"{_quote_ident(colName)} {type_sql}" + ("" if nullable else " NOT NULL")
        if isinstance(generatedAlwaysAs, IdentityGenerator):
            col += f" GENERATED ALWAYS AS IDENTITY {generatedAlwaysAs._sql()}"
        elif generatedByDefaultAs is not None:
            col += f" GENERATED BY DEFAULT AS IDENTITY {generatedByDefaultAs._sql()}"
        elif generatedAlwaysAs is not None:
            col += f" GENERATED ALWAYS AS ({generatedAlwaysAs})"
        if comment is not None:
            col += f" COMMENT {_quote_path(comment)}"
        self._columns.append(col)
        return self

    def addColumns(self, cols: Union["StructType", Iterable["StructField"]]) -> "DeltaTableBuilder":
        """Adds the columns of a schema (a StructType or StructFields)."""
        from pyspark.sql.types import StructField, StructType
        if isinstance(cols, list):
            for col in cols:
                if type(col) is not StructField:
                    checks.type_error("Column in existing schema must be StructField.", [col])
            cols = StructType(cols)
        if type(cols) is not StructType:
            checks.type_error("Schema must be StructType or a list of StructField.", [cols])
        for f in cols.fields:
            meta = f.metadata or {}
            generated: Optional[Union[str, IdentityGenerator]] = meta.get("delta.generationExpression")
            by_default = None
            if "delta.identity.start" in meta:
                identity = IdentityGenerator(meta["delta.identity.start"], meta.get("delta.identity.step", 1))
                if meta.get("delta.identity.allowExplicitInsert"):
                    by_default = identity
                else:
                    generated = identity
            self.addColumn(f.name, f.dataType, f.nullable, generatedAlwaysAs=generated,
                           generatedByDefaultAs=by_default, comment=meta.get("comment"))
        return self

    def partitionedBy(self, *cols: Union[str, List[str], Tuple[str, ...]]) -> "DeltaTableBuilder":
        """The partition columns."""
        self._partitioned = _flatten(cols)
        checks.verify_columns(self._partitioned, "Partitioning")
        return self

    def clusterBy(self, *cols: Union[str, List[str], Tuple[str, ...]]) -> "DeltaTableBuilder":
        """The clustering columns (liquid clustering)."""
        self._clustered = _flatten(cols)
        checks.verify_columns(self._clustered, "Clustering")
        return self

    def property(self, key: str, value: str) -> "DeltaTableBuilder":
        """A table property (``delta.*`` ones as Silt honours or refuses them)."""
        if type(key) is not str or type(value) is not str:
            checks.type_error("Key and value of property must be string.", [key, value])
        self._properties[key] = value
        return self

    def _sql(self) -> str:
        if self._name is None and self._location is None:
            raise ValueError("the table needs a name (tableName) or a location")
        if not self._columns:
            raise ValueError("the table needs at least one column (addColumn / addColumns)")
        target = self._name if self._name is not None else "silt.`" + str(self._location).replace("`", "``") + "`"
        sql = f"{self._statement} {target} ({', '.join(self._columns)}) USING silt"
        if self._partitioned:
            sql += " PARTITIONED BY (" + ", ".join(_quote_ident(c) for c in self._partitioned) + ")"
        if self._clustered:
            sql += " CLUSTER BY (" + ", ".join(_quote_ident(c) for c in self._clustered) + ")"
        if self._comment is not None:
            sql += f" COMMENT {_quote_path(self._comment)}"
        if self._properties:
            sql += " TBLPROPERTIES (" + ", ".join(
                f"{_quote_path(k)} = {_quote_path(str(v))}" for k, v in self._properties.items()) + ")"
        if self._name is not None and self._location is not None:
            sql += f" LOCATION {_quote_path(self._location)}"
        return sql

    def execute(self) -> DeltaTable:
        """Runs the statement; returns the table."""
        sql = self._sql()
        if self._spark.version.startswith("3."):
            # Spark 3.5's SQL has neither clause: refused by name rather than as a syntax error
            needs = (["clusterBy"] if self._clustered else []) + \
                (["IdentityGenerator"] if any(" AS IDENTITY " in c for c in self._columns) else [])
            if needs:
                raise UnsupportedOptionException(
                    f"{' and '.join(needs)} need Spark 4.0 or later (Spark {self._spark.version}'s SQL has no "
                    "CLUSTER BY and no identity columns); create the table on Spark 4, or without them")
        reraise(lambda: self._spark.sql(sql))
        if self._name is not None:
            return DeltaTable.forName(self._spark, self._name)
        return DeltaTable.forPath(self._spark, str(self._location))


def _flatten(cols: Iterable[Union[str, List[str], Tuple[str, ...]]]) -> List[str]:
    """Columns given as arguments, or as one list or tuple (as delta-spark takes them)."""
    cols = list(cols)
    if len(cols) == 1 and isinstance(cols[0], (list, tuple)):
        return list(cols[0])
    return cols  # type: ignore[return-value]


def _data_type_class() -> type:
    from pyspark.sql.types import DataType
    return DataType


__all__ = ["DeltaTable", "DeltaMergeBuilder", "DeltaOptimizeBuilder", "DeltaTableBuilder", "IdentityGenerator"]
