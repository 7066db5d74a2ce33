"""Expressions given as Columns, where delta-spark's API takes them: DELETE and UPDATE conditions,
UPDATE values, MERGE conditions, clause conditions and values. Each program below runs unchanged on
Silt (its `DeltaTable`) and on the reference Delta Lake (delta-spark's), and the table must hold the
same rows afterwards. The table has a column named `a` and conditions compare with the string 'a':
a Column printed as text (`key = a`) would compare with the column instead."""
import json
import subprocess
import sys

import pytest
from pyspark.sql import functions as F

from silt.delta.tables import DeltaTable
from conftest import REPO_ROOT, needs_spark_4, python_env
from test_interop import run_reference

from scenarios.column_programs import CATCH, PROGRAMS, SETUP, WRONG_CALLS

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


@pytest.mark.smoke  # the Connect plugin's interfaces on every Spark 4 minor
@pytest.mark.server
@pytest.mark.full  # second tier: a Connect server's JVM and its 140 s
@needs_spark_4("Spark Connect plugin in Silt's jar")
def test_the_same_programs_over_spark_connect_change_the_same_rows(spark, tmp_path):
    """Classic and Connect runs of the programs above: over Connect, each Column travels as the Connect
    protocol's expression to Silt's plugin on the server, never as text."""
    pytest.importorskip("grpc")
    r = subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "scenarios" / "connect_columns.py")],
                       env=python_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    connect = json.loads(r.stdout.strip().splitlines()[-1])
    for name, program in PROGRAMS.items():
        path = str(tmp_path / name)
        scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
        exec(SETUP.format(path=path) + program, scope)
        rows = sorted(list(row) for row in spark.read.format("delta").load(path).collect())
        assert connect["rows"][name] == rows, name
    assert connect["rows"]["merge_columns_metrics"] == [1, 1, 1]
    assert connect["errors"] == WRONG_CALLS
