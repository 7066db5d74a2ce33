"""Expressions given as Columns, where delta-spark's API takes them: DELETE and UPDATE conditions,
UPDATE values, MERGE conditions, clause conditions and values. Each program below runs unchanged on
Silt (its `DeltaTable`) and on the reference Delta Lake (delta-spark's), and the table must hold the
same rows afterwards. The table has a column named `a` and conditions compare with the string 'a':
a Column printed as text (`key = a`) would compare with the column instead."""
import pytest
from pyspark.sql import functions as F

from silt.delta.tables import DeltaTable
from test_interop import run_reference

SETUP = """
path = {path!r}
spark.createDataFrame([("a", "b", "1"), ("b", "b", "2"), ("c", "a", "3"), ("d", "d", "4")],
                      "key STRING, a STRING, v STRING").write.format("delta").save(path)
dt = DeltaTable.forPath(spark, path)
src = spark.createDataFrame([("a", "x"), ("b", "skip"), ("e", "new")], "key STRING, v STRING")
full = spark.createDataFrame([("a", "q", "x"), ("b", "q", "skip"), ("e", "q", "new")], "key STRING, a STRING, v STRING")
"""

PROGRAMS = {
    "delete_column": 'dt.delete(F.col("key") == "a")',
    "delete_string_literal_vs_column": 'dt.delete(F.col("key") == F.lit("b"))',
    "delete_everything": "dt.delete()",
    "update_columns": 'dt.update(F.col("key") == "b", {"v": F.lit("z"), "a": F.upper(F.col("a"))})',
    "update_mixed": 'dt.update("key = \'c\'", {"v": F.concat(F.col("v"), F.lit("!")), "a": "\'a\'"})',
    "update_everywhere": 'dt.update(set={"v": F.col("key")})',
    "merge_columns": """
(dt.alias("t").merge(src.alias("s"), F.col("t.key") == F.col("s.key"))
   .whenMatchedUpdate(condition=F.col("s.v") != "skip", set={"v": F.col("s.v")})
   .whenNotMatchedInsert(values={"key": F.col("s.key"), "a": F.lit("a"), "v": F.upper(F.col("s.v"))})
   .whenNotMatchedBySourceUpdate(condition=F.col("t.key") == "a", set={"v": F.lit("orphan")})
   .whenNotMatchedBySourceDelete(condition=F.col("t.a") == "a")
   .execute())""",
    "merge_clauses_in_any_order": """
(dt.alias("t").merge(full.alias("s"), "t.key = s.key")
   .whenNotMatchedInsertAll(condition=F.col("s.v") == "new")
   .whenMatchedDelete(condition=F.col("s.v") == "skip")
   .whenMatchedUpdateAll()
   .execute())""",
}


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_column_arguments_change_the_rows_the_reference_changes(spark, tmp_path):
    ops, expected_paths = [], {}
    for name, program in PROGRAMS.items():
        ref_path = str(tmp_path / f"ref_{name}")
        ops.append({"op": "api", "code": SETUP.format(path=ref_path) + program +
                    "\nresult = sorted(tuple(r) for r in spark.read.format('delta').load(path).collect())"})
        expected_paths[name] = ref_path
    reference = dict(zip(PROGRAMS, run_reference(ops)))
    for name, program in PROGRAMS.items():
        path = str(tmp_path / f"silt_{name}")
        scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
        exec(SETUP.format(path=path) + program, scope)
        rows = sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())
        assert reference[name]["ok"], reference[name]["error"]
        assert repr(rows) == reference[name]["result"], name


def test_a_column_compared_with_a_string_is_not_read_as_a_column_reference(spark, tmp_path):
    path = str(tmp_path / "t")
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(SETUP.format(path=path) + PROGRAMS["delete_column"] + "\n" + PROGRAMS["update_columns"], scope)
    rows = sorted(tuple(r) for r in spark.read.format("delta").load(path).collect())
    # key = 'a' deleted row a only (key = a, the column, would have deleted row b and kept row a)
    assert rows == [("b", "B", "z"), ("c", "a", "3"), ("d", "d", "4")]
    history = DeltaTable.forPath(spark, path).history().select("operation").collect()
    assert [r.operation for r in history][:2] == ["UPDATE", "DELETE"]


def test_merge_with_columns_returns_its_metrics(spark, tmp_path):
    path = str(tmp_path / "t")
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(SETUP.format(path=path) + "metrics = " + PROGRAMS["merge_columns"].strip(), scope)
    m = scope["metrics"].first().asDict()
    # a updated, e inserted, c (t.a = 'a', no source row) deleted; d has neither
    assert (m["num_updated_rows"], m["num_inserted_rows"], m["num_deleted_rows"]) == (1, 1, 1)


# Wrong calls, each with the exception delta-spark raises for it (the reference test checks that).
WRONG_CALLS = {
    "dt.delete(1)": "TypeError",
    "dt.update(F.col('key') == 'a', None)": "ValueError",
    "dt.update(set=['v'])": "TypeError",
    "dt.update(set={1: 'v'})": "TypeError",
    "dt.update(set={'v': 1})": "TypeError",
    "dt.merge(None, 'key = key')": "ValueError",
    "dt.merge(src, None)": "ValueError",
    "dt.merge('src', 'key = key')": "TypeError",
    "dt.merge(src, 1)": "TypeError",
    "dt.merge(src, 'key = key').whenMatchedUpdate(set=None)": "ValueError",
    "dt.merge(src, 'key = key').whenMatchedDelete(condition=3)": "TypeError",
    "dt.optimize().executeZOrderBy(1)": "TypeError",
    "dt.restoreToVersion('1')": "ValueError",
    "dt.restoreToTimestamp(1)": "ValueError",
    "dt.upgradeTableProtocol('1', 2)": "ValueError",
    "dt.addFeatureSupport(1)": "ValueError",
    "dt.dropFeatureSupport('deletionVectors', 'yes')": "ValueError",
    "dt.clone('/tmp/x', isShallow='yes')": "ValueError",
    "DeltaTable.create(spark).tableName(1)": "TypeError",
    "DeltaTable.create(spark).clusterBy(1)": "TypeError",
    "DeltaTable.create(spark).partitionedBy('a', 2)": "TypeError",
    "DeltaTable.create(spark).addColumn('c', 1)": "TypeError",
    "DeltaTable.create(spark).addColumn('c', 'INT', nullable='no')": "TypeError",
    "DeltaTable.create(spark).property('k', 1)": "TypeError",
    "DeltaTable.create(spark).addColumns(1)": "TypeError",
}
CATCH = "\ntry:\n    {call}\n    result = None\nexcept Exception as e:\n    result = type(e).__name__\n"


def silt_error_of(spark, path, call):
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(SETUP.format(path=path) + CATCH.format(call=call), scope)
    return scope["result"]


def test_wrong_arguments_raise_what_delta_spark_raises(spark, tmp_path):
    for i, (call, error) in enumerate(WRONG_CALLS.items()):
        path = str(tmp_path / f"t{i}")
        assert silt_error_of(spark, path, call) == error, call
        assert spark.read.format("delta").load(path).count() == 4  # nothing was changed


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_wrong_arguments_raise_the_same_types_on_the_reference(tmp_path):
    ops = [{"op": "api", "code": SETUP.format(path=str(tmp_path / f"r{i}")) + CATCH.format(call=call)}
           for i, call in enumerate(WRONG_CALLS)]
    for (call, error), res in zip(WRONG_CALLS.items(), run_reference(ops)):
        assert res["ok"], res["error"]
        assert res["result"] == repr(error), call
