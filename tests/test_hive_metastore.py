"""A session with Hive support (an embedded Derby metastore the test makes; dbt-spark, the Thrift server
and most on-premise clusters run so): `USING delta` tables by name, managed and external, through CREATE,
REPLACE, CTAS, RTAS, INSERT, DML, ALTER, DROP, SHOW, DESCRIBE and views, the metastore's columns the
log's after every statement; and tables the reference Delta Lake made in the same metastore read and
written by Silt, and back. Each engine runs in a process of its own (scenarios/hive_metastore.py)."""
import json
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, python_env

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "hive_metastore.py"


def run(folder, statements, engine="silt"):
    """Runs `statements` in a session with Hive support on the metastore in `folder`; each one's result."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / f"statements-{engine}.json"
    script.write_text(json.dumps(statements))
    r = subprocess.run([sys.executable, str(SCENARIO), str(folder), str(script), "--engine", engine],
                       env=python_env(), capture_output=True, text=True, timeout=900)
    lines = [l for l in r.stdout.splitlines() if l.startswith("@@RESULT@@ ")]
    assert r.returncode == 0 and lines, r.stderr[-4000:]
    return json.loads(lines[0][len("@@RESULT@@ "):])


def ok(result):
    assert "error" not in result, f"{result['statement']}: {result['error']}"
    return result["rows"]


def agree(result, with_columns=()):
    """After a statement, the metastore holds a Delta table as Delta Lake registers it: a new table without
    columns (the log has them); a replaced one (or any, with `catalog.update.enabled`), `with_columns`, with
    the log's columns in the log's order, kept as the log has them."""
    for name, t in result["metastore"].items():
        if t["type"] != "VIEW" and t["log"] is not None:
            assert t["columns"] == (t["log"] if name in with_columns else []), (result["statement"], name, t)


def statements_on(ext):
    """Every kind of statement a metastore sees on `USING delta` tables; `ext`: an external table's folder."""
    return [
        "CREATE TABLE m (id INT, v STRING) USING delta",
        "INSERT INTO m VALUES (1, 'a'), (2, 'b')",
        f"CREATE TABLE e (id INT, p INT) USING delta PARTITIONED BY (p) LOCATION '{ext}'",
        "INSERT INTO e VALUES (1, 1), (2, 2)",
        "CREATE TABLE c USING delta AS SELECT * FROM m",
        "CREATE OR REPLACE TABLE c USING delta AS SELECT id FROM m",
        "REPLACE TABLE c (id BIGINT, w STRING) USING delta",
        "ALTER TABLE c ADD COLUMNS (later INT)",
        "UPDATE m SET v = 'x' WHERE id = 1",
        "DELETE FROM m WHERE id = 2",
        "MERGE INTO m t USING (SELECT 3 AS id, 'c' AS v) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
        "ALTER TABLE m SET TBLPROPERTIES ('team' = 'data')",
        "ALTER TABLE m ADD COLUMNS (extra BIGINT COMMENT 'more')",
        "ALTER TABLE m ALTER COLUMN v COMMENT 'a letter'",
        "CREATE TABLE cl (id INT, k STRING) USING delta CLUSTER BY (id)",
        "ALTER TABLE cl CLUSTER BY (k)",
        "CREATE VIEW mv AS SELECT id, extra FROM m",
        "SELECT * FROM mv ORDER BY id",
        "SET spark.databricks.delta.schema.autoMerge.enabled = true",
        "INSERT INTO m SELECT 4 AS id, 'd' AS v, 1 AS extra",
        "MERGE INTO m t USING (SELECT 5 AS id, 'e' AS v, 2 AS extra, 'n' AS note) s ON t.id = s.id "
        "WHEN NOT MATCHED THEN INSERT *",
        "MERGE INTO m t USING (SELECT 6 AS id, 0.5 AS score) s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *",
        "SET spark.databricks.delta.catalog.update.enabled = true",
        "CREATE TABLE u (id INT, p STRING) USING delta PARTITIONED BY (p)",
        "INSERT INTO u VALUES (1, 'a')",
        "ALTER TABLE u ADD COLUMNS (x INT)",
        "SET spark.databricks.delta.catalog.update.longFieldTruncationThreshold = 10",
        "CREATE TABLE w (id INT, s STRUCT<a: INT, b: STRING>) USING delta",
        "SET spark.databricks.delta.catalog.update.longFieldTruncationThreshold = 4000",
        "SET spark.databricks.delta.catalog.update.enabled = false",
        "SHOW TABLES",
        "SHOW TABLE EXTENDED LIKE 'm'",
        "DESCRIBE EXTENDED m",
        "SHOW CREATE TABLE m",
        "SHOW TBLPROPERTIES m",
        "SELECT id, v, extra, note, score FROM m ORDER BY id",
        "DROP TABLE m",
        "DROP TABLE e",
        f"SELECT count(*) FROM delta.`{ext}`",
    ]


@pytest.mark.full  # second tier: a metastore and a Hive-enabled session, 120 s
def test_delta_tables_in_a_hive_metastore(tmp_path):
    ext = tmp_path / "external"
    statements = statements_on(ext)
    results = {r["statement"]: r for r in run(tmp_path, statements)}
    for statement in statements:
        ok(results[statement])
    with_columns = set()
    for statement in statements:
        with_columns |= {"c"} if "REPLACE TABLE c" in statement else {"u"} if "TABLE u" in statement else set()
        agree(results[statement], with_columns)
    meta = results["SHOW TABLES"]["metastore"]
    assert meta["m"]["provider"] == "delta" and meta["m"]["type"] == "MANAGED"
    assert meta["e"]["type"] == "EXTERNAL" and meta["c"]["columns"] == ["id bigint", "w string", "later int"]
    assert meta["m"]["columns"] == [] and meta["u"]["columns"] == ["id int", "p string", "x int"]
    assert meta["w"]["columns"] == []  # a type longer than the truncation threshold: no columns stored
    assert {r[1] for r in ok(results["SHOW TABLES"])} == {"m", "e", "c", "cl", "u", "w", "mv"}
    extended = ok(results["SHOW TABLE EXTENDED LIKE 'm'"])[0][3]
    assert "Provider: delta" in extended and "Type: MANAGED" in extended
    described = {r[0]: r for r in ok(results["DESCRIBE EXTENDED m"])}
    assert described["extra"][2] == "more" and described["v"][2] == "a letter" and described["Provider"][1] == "delta"
    assert "note STRING" in ok(results["SHOW CREATE TABLE m"])[0][0]
    assert ["team", "data"] in ok(results["SHOW TBLPROPERTIES m"])
    assert ok(results["SELECT * FROM mv ORDER BY id"]) == [["1", None], ["3", None]]
    assert ok(results["SELECT id, v, extra, note, score FROM m ORDER BY id"]) == [
        ["1", "x", None, None, None], ["3", "c", None, None, None], ["4", "d", "1", None, None],
        ["5", "e", "2", "n", None], ["6", None, None, None, "0.5"]]
    # a managed table's files go with it, an external table's stay
    assert results["DROP TABLE m"]["metastore"].get("m") is None
    assert not (tmp_path / "warehouse" / "m").exists()
    assert ok(results[f"SELECT count(*) FROM delta.`{ext}`"]) == [["2"]]


@pytest.mark.full  # second tier: three processes on one metastore, the reference's among them
@pytest.mark.reference
def test_tables_of_the_reference_in_the_same_metastore(tmp_path):
    from reference_delta import DELTA_PACKAGE
    if DELTA_PACKAGE is None:
        pytest.skip("no reference Delta Lake release is built for this Spark minor")
    made = run(tmp_path, ["CREATE TABLE r (id INT, v STRING) USING delta PARTITIONED BY (v)",
                          "INSERT INTO r VALUES (1, 'a'), (2, 'b')",
                          "CREATE TABLE rc USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true') "
                          "AS SELECT id FROM range(10)"], engine="reference")
    for r in made:
        ok(r)
    # Silt reads, writes, changes and adds to the reference's tables
    silt = run(tmp_path, ["SELECT * FROM r ORDER BY id", "INSERT INTO r VALUES (3, 'c')",
                          "DELETE FROM rc WHERE id < 5", "UPDATE r SET v = 'z' WHERE id = 1",
                          "ALTER TABLE r ADD COLUMNS (n BIGINT)", "CREATE TABLE s (id INT) USING delta",
                          "INSERT INTO s VALUES (7)"])
    for r in silt:
        ok(r)
    assert silt[0]["rows"] == [["1", "a"], ["2", "b"]]
    agree(silt[-1])
    back = run(tmp_path, ["SELECT id, v, n FROM r ORDER BY id", "SELECT count(*) FROM rc", "SELECT * FROM s",
                          "INSERT INTO s VALUES (8)"], engine="reference")
    assert ok(back[0]) == [["1", "z", None], ["2", "b", None], ["3", "c", None]]
    assert ok(back[1]) == [["5"]] and ok(back[2]) == [["7"]]
    ok(back[3])
    again = run(tmp_path, ["SELECT * FROM s ORDER BY id"])
    assert ok(again[0]) == [["7"], ["8"]]


@pytest.mark.full  # second tier: the reference's process
@pytest.mark.reference
def test_the_metastore_holds_what_the_reference_puts_there(tmp_path):
    """The same statements by each engine on a metastore of its own: after each, the same entries (type,
    provider, columns) and the same statements refused."""
    from reference_delta import DELTA_PACKAGE
    if DELTA_PACKAGE is None:
        pytest.skip("no reference Delta Lake release is built for this Spark minor")
    ours = run(tmp_path / "silt", statements_on(tmp_path / "silt-external"))
    theirs = run(tmp_path / "reference", statements_on(tmp_path / "reference-external"), engine="reference")
    for a, b in zip(ours, theirs):
        # the reference refuses SHOW CREATE TABLE of its tables (DELTA_OPERATION_NOT_ALLOWED); Silt answers it
        if a["statement"] != "SHOW CREATE TABLE m":
            assert ("error" in a) == ("error" in b), (a["statement"], a.get("error"), b.get("error"))
        assert sorted(a["metastore"]) == sorted(b["metastore"]), a["statement"]
        for name, t in a["metastore"].items():
            expected = b["metastore"][name]
            # where the reference leaves a replaced table's columns as the replace made them, Silt's are the log's
            stale = expected["columns"] and expected["columns"] != expected["log"] and expected["log"] is not None
            assert (t["type"], t["provider"], t["columns"]) == (expected["type"], expected["provider"],
                                                                 t["log"] if stale else expected["columns"]), \
                (a["statement"], name)
