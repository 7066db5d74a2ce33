"""``MergeBuilder``: the WHEN clauses of a MERGE into a :class:`silt.SiltTable`, and its execution."""
from __future__ import annotations

import uuid

from typing import TYPE_CHECKING, Mapping, Optional, Union

from silt.errors import reraise
from silt.expressions import SlottedSql, _check_condition, _check_mapping, _data_frame, _jvm_api, _to_jcolumn, _to_jmap
from silt.table import SiltTable, _quote_ident

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

Values = Mapping[str, Union[str, "Column"]]
# SQL's order of the kinds of WHEN clause; clauses of one kind keep the order they were given in, which
# decides which one a row takes.
_KINDS = {"MATCHED": 0, "NOT MATCHED": 1, "NOT MATCHED BY SOURCE": 2}


class MergeBuilder:
    """WHEN clauses of a MERGE, applied in the order given; ``execute()`` runs it. Conditions and values
    are SQL strings or Columns.

    >>> t.merge(src, "target.id = source.id").when_matched_delete("source.gone").when_not_matched_insert_all().execute()
    """

    def __init__(self, table: SiltTable, source: "DataFrame", condition: Union[str, "Column"],
                 source_alias: Optional[str], target_alias: Optional[str]):
        self._table = table
        self._source = source
        self._condition = condition
        self._aliases = (source_alias, target_alias)
        self._evolve = False
        # (when, condition, action, values): when is MATCHED, NOT MATCHED or NOT MATCHED BY SOURCE; the
        # action UPDATE, UPDATE *, DELETE, INSERT or INSERT *; values the assignments of UPDATE and INSERT.
        self._clauses: list[tuple[str, Optional[Union[str, "Column"]], str, Optional[Values]]] = []

    def _add(self, when: str, condition: Optional[Union[str, "Column"]], action: str,
             values: Optional[Values] = None, argname: str = "'set'") -> "MergeBuilder":
        _check_condition(condition, "'condition'")
        if action in ("UPDATE", "INSERT"):
            _check_mapping(values, argname)
        self._clauses.append((when, condition, action, values))
        return self

    def when_matched_update(self, set: Values, condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Updates matched target rows: ``{"column": "SQL expression" or Column}``."""
        return self._add("MATCHED", condition, "UPDATE", set)

    def when_matched_update_all(self, condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Updates every column of matched target rows from the source. ``m.when_matched_update_all()``"""
        return self._add("MATCHED", condition, "UPDATE *")

    def when_matched_delete(self, condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Deletes matched target rows. ``m.when_matched_delete("source.gone")``"""
        return self._add("MATCHED", condition, "DELETE")

    def when_not_matched_insert(self, values: Values,
                                condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Inserts source rows without a match: ``{"column": "SQL expression" or Column}``."""
        return self._add("NOT MATCHED", condition, "INSERT", values, "'values'")

    def when_not_matched_insert_all(self, condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Inserts source rows without a match, column by column. ``m.when_not_matched_insert_all()``"""
        return self._add("NOT MATCHED", condition, "INSERT *")

    def when_not_matched_by_source_delete(self, condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Deletes target rows that no source row matches. ``m.when_not_matched_by_source_delete()``"""
        return self._add("NOT MATCHED BY SOURCE", condition, "DELETE")

    def when_not_matched_by_source_update(self, set: Values,
                                          condition: Optional[Union[str, "Column"]] = None) -> "MergeBuilder":
        """Updates target rows that no source row matches. ``m.when_not_matched_by_source_update({"live": "false"})``"""
        return self._add("NOT MATCHED BY SOURCE", condition, "UPDATE", set)

    def with_schema_evolution(self) -> "MergeBuilder":
        """MERGE WITH SCHEMA EVOLUTION: source columns the table lacks are added by ``UPDATE SET *`` /
        ``INSERT *``. ``m.with_schema_evolution().when_not_matched_insert_all()``"""
        self._evolve = True
        return self

    def execute(self) -> "DataFrame":
        """Runs the MERGE; returns (num_affected_rows, num_updated_rows, num_deleted_rows, num_inserted_rows).

        ``t.merge(updates, "target.id = source.id").when_matched_update_all().execute()``
        """
        if not self._clauses:
            raise ValueError("a MERGE needs at least one WHEN clause")
        if _jvm_api(self._table._spark) is not None:
            return reraise(self._execute_jvm)
        return self._execute_sql()

    def _ordered(self) -> list[tuple[str, Optional[Union[str, "Column"]], str, Optional[Values]]]:
        return sorted(self._clauses, key=lambda c: _KINDS[c[0]])

    def _execute_jvm(self) -> "DataFrame":
        """Through Silt's JVM API, which plans Columns as they are."""
        spark = self._table._spark
        source_alias, target_alias = self._aliases
        source = self._source.alias(source_alias) if source_alias else self._source
        table = self._table._jvm_table()
        if target_alias and self._table._alias is None:
            table = table.alias(target_alias)
        builder = table.merge(source._jdf, _to_jcolumn(self._condition))
        starts = {"MATCHED": "whenMatched", "NOT MATCHED": "whenNotMatched",
                  "NOT MATCHED BY SOURCE": "whenNotMatchedBySource"}
        for when, condition, action, values in self._ordered():
            start = getattr(builder, starts[when])
            clause = start() if condition is None else start(_to_jcolumn(condition))
            if action in ("UPDATE", "INSERT"):
                assert values is not None
                builder = getattr(clause, action.lower())(_to_jmap(spark, values))
            else:
                builder = getattr(clause, {"UPDATE *": "updateAll", "INSERT *": "insertAll", "DELETE": "delete"}[action])()
        if self._evolve:
            builder = builder.withSchemaEvolution()
        return _data_frame(spark, builder.execute())

    def _execute_sql(self) -> "DataFrame":
        """As a MERGE statement (Spark Connect): Columns in slots, the source as a temporary view."""
        slots = SlottedSql()
        text = slots.text

        def clause(when: str, condition: Optional[Union[str, "Column"]], action: str, values: Optional[Values]) -> str:
            head = f"WHEN {when}" + (f" AND {text(condition)}" if condition is not None else "") + " THEN "
            if action == "UPDATE":
                assert values is not None
                return head + "UPDATE SET " + ", ".join(f"{_quote_ident(k)} = {text(v)}" for k, v in values.items())
            if action == "INSERT":
                assert values is not None
                return head + f"INSERT ({', '.join(_quote_ident(k) for k in values)}) " + \
                    f"VALUES ({', '.join(text(v) for v in values.values())})"
            return head + ("UPDATE SET *" if action == "UPDATE *" else action)
        clauses = " ".join(clause(*c) for c in self._ordered())
        view = f"silt_merge_source_{uuid.uuid4().hex}"
        self._source.createOrReplaceTempView(view)
        source_alias, target_alias = self._aliases
        evolution = " WITH SCHEMA EVOLUTION" if self._evolve else ""
        target = self._table._dml_ref + (f" AS {_quote_ident(target_alias)}" if target_alias else "")
        source = view + (f" AS {_quote_ident(source_alias)}" if source_alias else "")
        sql = f"MERGE{evolution} INTO {target} USING {source} ON {text(self._condition)} {clauses}"
        try:
            return slots.run(self._table._spark, sql)
        finally:
            self._table._spark.catalog.dropTempView(view)
