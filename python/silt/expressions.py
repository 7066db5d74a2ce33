"""Expression arguments of the Python API: Delta's checks of them, and how each reaches the engine (a
classic session: as JVM Columns, through Silt's JVM API; Spark Connect: as SQL strings)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Optional, Union

from silt.errors import UnsupportedOptionException

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


def _sql_text(value: Union[str, "Column"]) -> str:
    """An expression for SQL over Spark Connect: a SQL string as it is. A Column is refused rather than
    printed: its text is not the expression (``key = 'a'`` prints as ``key = a``, a column reference)."""
    if isinstance(value, str):
        return value
    raise UnsupportedOptionException(
        f"a Column expression ({value!r}) over Spark Connect: Silt takes expressions as SQL strings there; "
        "pass the condition as a string, or run on a classic session")
