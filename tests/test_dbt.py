"""A dbt project (tests/dbt/project: dbt-spark's `session` connection, `file_format: delta`, a Hive metastore)
runs on Silt as on the reference Delta Lake: seeds, a view and a table model, incremental models with every
strategy dbt-spark has (append, merge on one key and on two with merge_update_columns and
merge_exclude_columns, insert_overwrite partitioned and not, microbatch), on_schema_change (append_new_columns,
sync_all_columns, fail), snapshots by timestamp and by check, generic tests, persist_docs, location_root and
`dbt docs generate`, run twice over changed source data. dbt and its pyspark live in .venvs/dbt (the Makefile's);
tests/dbt/run_project.py runs the project in a process of its own."""
import json
import subprocess

import pyspark
import pytest

from conftest import REPO_ROOT, python_env

DBT_PYTHON = REPO_ROOT / ".venvs" / "dbt" / "bin" / "python"
RUNNER = REPO_ROOT / "tests" / "dbt" / "run_project.py"
MARKER = "@@RESULT@@ "
# dbt's environment has the default minor's pyspark: the project runs on that minor only, not again from the
# environments of the others.
DBT_PYSPARK = [p.name[len("pyspark-"):-len(".dist-info")]
               for p in (REPO_ROOT / ".venvs" / "dbt").glob("lib/python*/site-packages/pyspark-*.dist-info")]
pytestmark = pytest.mark.skipif(DBT_PYSPARK != [pyspark.__version__],
                                reason=f"the dbt environment's pyspark is {DBT_PYSPARK}, this one's {pyspark.__version__}")
# A check snapshot's row ids and times are the time dbt ran it: those of two runs differ.
RUN_TIMES = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to")


def run_project(folder, engine="silt", plan="full"):
    """What run_project.py reports of the project run by `engine` on a metastore in `folder`."""
    r = subprocess.run([str(DBT_PYTHON), str(RUNNER), str(folder), "--engine", engine, "--plan", plan],
                       env=python_env(), capture_output=True, text=True, timeout=1200)
    lines = [l for l in r.stdout.splitlines() if l.startswith(MARKER)]
    assert r.returncode == 0 and lines, r.stderr[-4000:]
    return json.loads(lines[0][len(MARKER):])


def failed(step):
    """The nodes of a dbt step that did not succeed or pass, by name."""
    return {node.split(".")[-1]: status for node, status in step["statuses"].items()
            if status not in ("success", "pass")}


def without_run_times(table):
    """A table's rows with a check snapshot's run times and ids reduced to whether they are set."""
    times = [i for i, c in enumerate(table["columns"]) if c in RUN_TIMES]
    rows = [[("set" if v is not None else None) if i in times else v for i, v in enumerate(r)] for r in table["rows"]]
    return sorted(rows, key=json.dumps)


@pytest.mark.full  # second tier: make test was past 15 minutes (44 s; the full project runs beside it)
def test_a_dbt_project_merges_and_records_its_tables_as_delta_lake_does(tmp_path):
    """The quick step `make test` runs: two merge models (one key; two keys with merge_update_columns and a
    location_root) over seeds, run again after the source changed."""
    result = run_project(tmp_path, plan="quick")
    assert all(step["success"] for step in result["steps"].values()), result["steps"]
    tables = result["tables"]
    merged = tables["analytics.customers_merge"]
    assert merged["rows"] == [
        ["1", "Ada", "London", "gold", "2026-01-01 08:00:00"],
        ["2", "Grace", "Oslo", "silver", "2026-01-05 08:00:00"],
        ["3", "Edsger", "Nuenen", "silver", "2026-01-02 10:00:00"],  # tier changed, updated_at did not
        ["4", "Barbara", "Boston", "bronze", "2026-01-02 11:00:00"],  # deleted at the source: merge keeps it
        ["5", "Alan", "Wilmslow", "platinum", "2026-01-05 09:00:00"]]
    lines = {(r[0], r[1]): r for r in tables["analytics.order_lines_merge"]["rows"]}
    assert len(lines) == 9
    assert lines[("104", "2")] == ["104", "2", "99.00", "2026-01-03", "1"]  # amount updated, loaded_in kept
    assert lines[("105", "1")][4] == "2"
    # Registered as Delta Lake registers a new table: no columns in the metastore (the log has them).
    assert merged["metastore"]["columns"] == [] and merged["metastore"]["provider"] == "delta"
    located = tables["analytics.order_lines_merge"]["metastore"]
    assert located["type"] == "EXTERNAL" and located["location"].endswith("/locations/order_lines_merge")
    assert merged["column_comments"]["city"] == "Where the customer lives"  # persist_docs


@pytest.mark.full
def test_the_dbt_project_ends_as_on_the_reference(tmp_path):
    silt = run_project(tmp_path / "silt")
    reference = run_project(tmp_path / "reference", engine="reference")
    for name, step in reference["steps"].items():
        assert failed(silt["steps"][name]) == failed(step), name
    # on_schema_change='fail' fails the second run on both; nothing else does
    assert failed(silt["steps"]["run 2"]) == {"schema_fail": "error"}
    assert all(step["success"] for name, step in silt["steps"].items() if name != "run 2")
    assert sorted(silt["tables"]) == sorted(reference["tables"])
    for name, table in silt["tables"].items():
        expected = reference["tables"][name]
        assert table["columns"] == expected["columns"], name
        assert without_run_times(table) == without_run_times(expected), name
        assert (table["comment"], table["column_comments"]) == (expected["comment"], expected["column_comments"]), name
        ours, theirs = table["metastore"], expected["metastore"]
        assert (ours["type"], ours["provider"], ours["columns"]) == (theirs["type"], theirs["provider"],
                                                                      theirs["columns"]), name
    # what `dbt docs generate` read: relations, columns, types and comments
    assert silt["catalog"] == reference["catalog"]
    # the columns on_schema_change added are in the docs (the issue: a metastore that kept the old ones)
    assert list(silt["catalog"]["model.silt_dbt.schema_append_new"]["columns"]) == ["id", "name", "city", "tier_code"]
    assert list(silt["catalog"]["model.silt_dbt.schema_sync_all"]["columns"]) == ["id", "name", "score"]
    snapshot = {r[0]: r for r in silt["tables"]["snapshots.customers_by_time"]["rows"] if r[-1] is None}
    assert snapshot["2"][2] == "Oslo" and "4" in snapshot  # timestamp strategy: no hard delete handling
    check = silt["tables"]["snapshots.customers_by_check"]
    current = {r[0] for r in check["rows"] if r[check["columns"].index("dbt_valid_to")] is None}
    assert current == {"1", "2", "3", "5"}  # 4 deleted at the source: invalidated
