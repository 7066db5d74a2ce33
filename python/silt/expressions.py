"""Expression arguments of the Python API: Delta's checks of them, and how each reaches the engine (a
classic session: as JVM Columns, through Silt's JVM API; Spark Connect: as the Connect protocol's
expressions in a slotted statement, io.silt.connect.SlottedStatementPlugin on the server)."""
from __future__ import annotations

import uuid

from typing import TYPE_CHECKING, Any, List, Mapping, Optional, Union

from silt.errors import UnsupportedOptionException, reraise

if TYPE_CHECKING:
    from py4j.java_gateway import JavaObject, JVMView
    from pyspark.sql import Column, DataFrame, SparkSession


def _jvm_api(spark: "SparkSession") -> Optional["JVMView"]:
    """The JVM of a classic session (where Silt's JVM API takes Columns as they are); None over Spark Connect."""
    return getattr(spark, "_jvm", None) if hasattr(spark, "_jsparkSession") else None


def _is_column(value: object) -> bool:
    from pyspark.sql import Column
    return isinstance(value, Column)


def _check_condition(condition: object, argname: str) -> None:
    """Delta's check of an expression argument: None, a SQL string or a Column, else TypeError."""
    if condition is not None and type(condition) is not str and not _is_column(condition):
        raise TypeError(f"{argname} must be a Spark SQL Column or a string (expression in SQL syntax), "
                        f"found to be of type {type(condition)}")


def _check_mapping(values: object, argname: str) -> None:
    """Delta's check of a column-to-expression dict: ValueError if None, TypeError for a wrong type."""
    if values is None:
        raise ValueError(f"{argname} cannot be None")
    if type(values) is not dict:
        raise TypeError(f"{argname} must be a dict, found to be {type(values)}")
    for k, v in values.items():
        if type(k) is not str:
            raise TypeError(f"Keys of dict in {argname} must contain only strings with column names, "
                            f"found '{k}' of type '{type(k)}")
        if type(v) is not str and not _is_column(v):
            raise TypeError(f"Values of dict in {argname} must contain only Spark SQL Columns or strings "
                            f"(expressions in SQL syntax) as values, found '{v}' of type '{type(v)}'")


def _check_merge(source: object, condition: object) -> None:
    """Delta's checks of merge's source and condition."""
    if source is None:
        raise ValueError("'source' in merge cannot be None")
    if not hasattr(source, "createOrReplaceTempView"):
        raise TypeError("Type of 'source' in merge must be DataFrame.")
    if condition is None:
        raise ValueError("'condition' in merge cannot be None")
    _check_condition(condition, "'condition'")


def _to_jcolumn(value: Optional[Union[str, "Column"]]) -> Optional["JavaObject"]:
    """A classic session's JVM Column: a Column as it is, a string parsed as Delta parses it (``expr``)."""
    if value is None:
        return None
    if isinstance(value, str):
        from pyspark.sql import functions as F
        return F.expr(value)._jc
    return value._jc


def _to_jmap(spark: "SparkSession", values: Mapping[str, Union[str, "Column"]]) -> "JavaObject":
    jmap = spark._jvm.java.util.LinkedHashMap()  # type: ignore[union-attr]
    for k, v in values.items():
        jmap.put(k, _to_jcolumn(v))
    return jmap


def _data_frame(spark: "SparkSession", jdf: "JavaObject") -> "DataFrame":
    from pyspark.sql import DataFrame
    return DataFrame(jdf, spark)


# The Any type of a slotted statement, and the server setting that registers its plugin: the JVM's
# io.silt.connect.SlottedStatementPlugin (TypeUrl) reads what SlottedSql.run sends.
SLOTTED_STATEMENT_TYPE = "type.googleapis.com/silt.connect.SlottedStatement"
CONNECT_PLUGIN = "io.silt.connect.SlottedStatementPlugin"
CONNECT_PLUGIN_KEY = "spark.connect.extensions.relation.classes"
# The Spark minors whose jar has no Connect plugin (Spark 3.5's plugin interface is another).
NO_CONNECT_PLUGIN = ("3.5",)


class SlottedSql:
    """A statement for Spark Connect, written as SQL around slots that hold Column expressions: the
    server plans each slot as the Column's own expression (a Column printed as text is a trap: ``key =
    'a'`` prints as ``key = a``, a column reference). Strings are SQL and go into the text as they are."""

    def __init__(self) -> None:
        self._nonce = uuid.uuid4().hex
        self._columns: List["Column"] = []

    def text(self, value: Union[str, "Column"]) -> str:
        """``value`` as it stands in the statement: a SQL string itself, a Column its slot's name."""
        if isinstance(value, str):
            return value
        self._columns.append(value)
        return f"`__silt_slot_{self._nonce}_{len(self._columns) - 1}`"

    def run(self, spark: "SparkSession", sql: str) -> "DataFrame":
        """Runs the statement once; its result rows (a statement without slots is plain SQL)."""
        if not self._columns:
            return reraise(lambda: spark.sql(sql))
        if ".".join(spark.version.split(".")[:2]) in NO_CONNECT_PLUGIN:
            raise UnsupportedOptionException(
                f"a Column expression over Spark Connect needs Spark 4.0 or later: Silt has no Connect plugin for "
                f"Spark {spark.version}; pass the expression as a SQL string")
        from pyspark.sql.connect.dataframe import DataFrame
        statement = DataFrame(_slotted_plan(sql, self._nonce, self._columns), session=spark)  # type: ignore[arg-type]
        try:
            # Run once, and the rows given back: each action on `statement` would run it again. Not by
            # toArrow, which asks the server for the schema first, and a Spark 4.0 server runs a
            # command to tell its schema: the statement would run twice.
            run_once = getattr(statement, "_to_table", None)
            rows = reraise(lambda: run_once()[0] if run_once is not None else statement.toPandas())
            return spark.createDataFrame(rows)  # type: ignore[return-value]
        except Exception as e:
            if "No handler found" in str(e) and SLOTTED_STATEMENT_TYPE in str(e):
                raise UnsupportedOptionException(
                    f"a Column expression over Spark Connect needs Silt's plugin on the server: start it with "
                    f"{CONNECT_PLUGIN_KEY}={CONNECT_PLUGIN} (silt.configure adds it), or pass the expression "
                    "as a SQL string") from e
            raise


def _slotted_plan(sql: str, nonce: str, columns: List["Column"]) -> Any:
    """The client's plan of a slotted statement (defined here: pyspark's Connect client is imported on use)."""
    from pyspark.sql.connect import proto
    from pyspark.sql.connect.plan import LogicalPlan

    class SlottedPlan(LogicalPlan):  # type: ignore[misc]
        """The Relation extension that carries a slotted statement (a Connect ``SQL`` message)."""

        def __init__(self, sql: str, nonce: str, columns: List["Column"]) -> None:
            super().__init__(None)
            self._sql, self._nonce, self._columns = sql, nonce, columns

        def plan(self, session: Any) -> Any:
            from pyspark.sql import functions as F
            message = proto.SQL(query=self._sql)
            # Spark Connect's Columns (pyspark.sql.connect.column.Column), which give their protocol message
            columns: List[Any] = [*self._columns, F.lit(self._nonce)]
            for column in columns[:-1]:
                message.pos_arguments.append(column.to_plan(session))
            message.named_arguments["nonce"].CopyFrom(columns[-1].to_plan(session))
            relation = self._create_proto_relation()
            relation.extension.type_url = SLOTTED_STATEMENT_TYPE
            relation.extension.value = message.SerializeToString()
            return relation

    return SlottedPlan(sql, nonce, columns)
