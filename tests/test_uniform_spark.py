"""Spark with Iceberg's own runtime (org.apache.iceberg:iceberg-spark-runtime-4.0_2.13, in the Spark 4.0
environment, a process without Silt) reads a UniForm table Silt wrote: every Delta version's snapshot (Iceberg
time travel by snapshot id) as Silt reads that version, the table by its path (Iceberg's Hadoop tables, through
version-hint.text), and the newest metadata file registered in an Iceberg catalog (`register_table`)."""
import json
import os
import subprocess

import pytest

from conftest import CANON_PY, INTEROP_DIR, REPO_ROOT, python_env
from test_uniform import UNIFORM, iceberg_table, silt_rows

pytestmark = pytest.mark.full  # second tier: the Spark 4.0 environment comes with make build-all

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


def read_with_iceberg_spark(requests, warehouse):
    if not SPARK_40.exists():
        pytest.fail(f"{SPARK_40} is missing: make build-all makes it")
    env = python_env()
    env["PYTHONPATH"] = os.pathsep.join([str(CANON_PY.parent), env["PYTHONPATH"]])
    env["PYSPARK_PYTHON"] = str(SPARK_40)
    proc = subprocess.run([str(SPARK_40), str(INTEROP_DIR / "iceberg_spark_reader.py"), json.dumps(requests),
                           str(warehouse)], capture_output=True, text=True, timeout=900, env=env)
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
