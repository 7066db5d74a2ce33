"""Spark with Iceberg's own runtime (org.apache.iceberg:iceberg-spark-runtime-4.0_2.13, in the Spark 4.0
environment, a process without Silt) reads a UniForm table Silt wrote: every Delta version's snapshot (Iceberg
time travel by snapshot id) as Silt reads that version, the table by its path (Iceberg's Hadoop tables, through
version-hint.text), the newest metadata file registered in an Iceberg catalog (`register_table`), and a table in
a Hive metastore through Iceberg's HiveCatalog on that metastore."""
import json
import os
import subprocess

import pytest

from conftest import CANON_PY, INTEROP_DIR, REPO_ROOT, python_env
from test_uniform import UNIFORM, converted_before_returning, iceberg_table, silt_rows  # noqa: F401 - a fixture

pytestmark = pytest.mark.full  # second tier: the Spark 4.0 environment comes with make build-second-tier

SPARK_40 = REPO_ROOT / ".venvs" / "spark-4.0" / "bin" / "python"
STEPS = [
    "CREATE TABLE {t} (id BIGINT, name STRING, amt DECIMAL(10, 2), p INT) USING delta PARTITIONED BY (p) "
    f"TBLPROPERTIES ({UNIFORM})",
    "INSERT INTO {t} SELECT id, concat('n', id), id / 4, CAST(id % 3 AS INT) FROM range(40)",
    "INSERT INTO {t} VALUES (100, NULL, NULL, NULL)",
    "DELETE FROM {t} WHERE id % 5 = 0",
    "UPDATE {t} SET name = upper(name) WHERE p = 2",
    "MERGE INTO {t} AS tg USING (SELECT id, 'm' AS name FROM range(35, 45)) AS s ON tg.id = s.id "
    "WHEN MATCHED THEN UPDATE SET name = s.name "
    "WHEN NOT MATCHED THEN INSERT (id, name, amt, p) VALUES (s.id, s.name, 0, 0)",
    "ALTER TABLE {t} ADD COLUMN extra STRING",
    "INSERT INTO {t} REPLACE WHERE p = 1 SELECT id, 'r', 1.5, 1, 'x' FROM range(200, 203)",
    "ALTER TABLE {t} RENAME COLUMN name TO label",
    "OPTIMIZE {t}",
]


def read_with_iceberg_spark(requests, warehouse, metastore=None):
    if not SPARK_40.exists():
        pytest.fail(f"{SPARK_40} is missing: make build-second-tier makes it")
    env = python_env()
    env["PYTHONPATH"] = os.pathsep.join([str(CANON_PY.parent), env["PYTHONPATH"]])
    env["PYSPARK_PYTHON"] = str(SPARK_40)
    proc = subprocess.run([str(SPARK_40), str(INTEROP_DIR / "iceberg_spark_reader.py"), json.dumps(requests),
                           str(warehouse)] + ([str(metastore)] if metastore else []), capture_output=True, text=True, timeout=900, env=env)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line, f"the Iceberg reader printed no result:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return json.loads(line[len("RESULT "):])


def test_spark_with_icebergs_runtime_reads_every_version(spark, tmp_path):
    path = tmp_path / "t"
    for step in STEPS:
        spark.sql(step.format(t=f"delta.`{path}`"))
    snapshots = {int(s.summary["delta-version"]): s.snapshot_id for s in iceberg_table(path).metadata.snapshots}
    versions = sorted(snapshots)
    assert versions == list(range(len(STEPS)))
    requests = [{"path": str(path), "snapshot_id": snapshots[v]} for v in versions]
    requests += [{"path": str(path)}, {"path": str(path), "register": True}]
    results = read_with_iceberg_spark(requests, tmp_path / "warehouse")
    for v, res in zip(versions, results):
        assert res["ok"], f"Delta version {v}: {res['error']}"
        want, columns = silt_rows(spark, path, v)
        # an older snapshot is read in its own schema, as Silt reads that version
        assert res["columns"] == columns, f"Delta version {v}"
        assert res["rows"] == want, f"Delta version {v} ({STEPS[v][:40]}…)"
    want, columns = silt_rows(spark, path)
    for res, how in zip(results[-2:], ("by path", "registered in a catalog")):
        assert res["ok"], f"{how}: {res['error']}"
        assert (res["columns"], res["rows"]) == (columns, want), how


def test_iceberg_reads_a_table_in_a_hive_metastore_by_its_name(tmp_path):
    """A UniForm table in a Hive metastore: its entry names its newest Iceberg metadata (table_type ICEBERG,
    metadata_location), through every statement, ALTERs that rewrite the entry's properties too, so that Iceberg's
    HiveCatalog on the same metastore lists and reads it; a table without UniForm is not listed. The Silt session
    converts in the background (Delta Lake's default): the last conversion ends before its JVM exits."""
    from test_hive_metastore import ok, run
    folder = tmp_path / "hms"
    statements = [
        "SET spark.databricks.delta.catalog.update.enabled = true",
        f"CREATE TABLE u (id BIGINT, name STRING, p INT) USING delta PARTITIONED BY (p) TBLPROPERTIES ({UNIFORM})",
        "INSERT INTO u SELECT id, concat('n', id), CAST(id % 3 AS INT) FROM range(20)",
        "ALTER TABLE u SET TBLPROPERTIES ('team' = 'data')",
        "DELETE FROM u WHERE id % 4 = 0",
        "ALTER TABLE u ADD COLUMNS (extra STRING)",
        "UPDATE u SET extra = 'e' WHERE p = 1",
        "CREATE TABLE plain (id INT) USING delta",
        "INSERT INTO plain VALUES (1)",
        "SELECT * FROM u",
    ]
    results = run(folder, statements)
    for r in results:
        ok(r)
    rows = sorted(tuple(r) for r in results[-1]["rows"])
    listed, read = read_with_iceberg_spark([{"tables": "default"}, {"table": "default.u"}], tmp_path / "warehouse",
                                           metastore=folder)
    assert listed["ok"], listed.get("error")
    assert listed["tables"] == ["u"]
    assert read["ok"], read["error"]
    assert read["columns"] == ["id", "name", "p", "extra"]
    got = sorted(tuple(None if v is None else str(v) for v in json.loads(x)) for x in read["rows"])
    assert got == rows
