"""Clustered tables across engines: the reference Delta Lake reads a table Silt clustered, sees its
clustering columns and clusters what Silt appended; Silt reads, appends to and clusters a table
the reference engine clustered, leaving the reference's clustered files alone, and changes its
clustering columns, which the reference engine then reads."""
import json
import os

import pytest

from test_interop import run_reference

pytestmark = pytest.mark.full  # second tier: make test-full


def rows(spark, path):
    return sorted(tuple(r) for r in spark.read.format("silt").load(path).collect())


def as_rows(result):
    return sorted((int(x), int(y)) for x, y in result["rows"])


def last_commit(path):
    log = os.path.join(path, "_delta_log")
    last = sorted(f for f in os.listdir(log) if f.endswith(".json"))[-1]
    return [json.loads(line) for line in open(os.path.join(log, last))]


INSERT = "INSERT INTO {t} SELECT id AS x, (id * 7919) % {n} AS y FROM range({start}, {end}, 1, {files})"


def test_clustered_tables_round_trip(spark, tmp_path):
    ours, theirs = str(tmp_path / "silt"), str(tmp_path / "ref")
    spark.sql(f"CREATE TABLE silt.`{ours}` (x BIGINT, y BIGINT) USING silt CLUSTER BY (x, y)")
    spark.sql(INSERT.format(t=f"silt.`{ours}`", n=20000, start=0, end=20000, files=4))
    spark.sql(f"OPTIMIZE silt.`{ours}`")
    spark.sql(INSERT.format(t=f"silt.`{ours}`", n=20000, start=20000, end=20200, files=2))
    expected = rows(spark, ours)

    ref_steps = [f"CREATE TABLE delta.`{theirs}` (x BIGINT, y BIGINT) USING delta CLUSTER BY (x, y)",
                 INSERT.format(t=f"delta.`{theirs}`", n=20000, start=0, end=20000, files=4),
                 f"OPTIMIZE delta.`{theirs}`",
                 INSERT.format(t=f"delta.`{theirs}`", n=20000, start=20000, end=20200, files=3)]
    results = run_reference([
        {"op": "read", "path": ours}, {"op": "detail", "path": ours},
        {"op": "sql", "statements": [f"OPTIMIZE delta.`{ours}`"]},
        {"op": "read", "path": ours},
        {"op": "sql", "statements": ref_steps}])
    assert all(r["ok"] for r in results), [r.get("error") for r in results]
    assert as_rows(results[0]) == expected
    assert results[1]["clusteringColumns"] == ["x", "y"] and "clustering" in results[1]["tableFeatures"]
    # the reference engine clustered the two files Silt appended (merging them with Silt's small ZCube,
    # as it merges any cube below its target size)
    removed = [a["remove"] for a in last_commit(ours) if "remove" in a]
    assert len([r for r in removed if "ZCUBE_ID" not in r.get("tags", {})]) == 2
    assert as_rows(results[3]) == expected and rows(spark, ours) == expected

    # Silt on the reference engine's table: its columns, its rows; OPTIMIZE clusters only the new files
    assert spark.sql(f"DESCRIBE DETAIL silt.`{theirs}`").first()["clusteringColumns"] == ["x", "y"]
    assert rows(spark, theirs) == expected
    m = spark.sql(f"OPTIMIZE silt.`{theirs}`").first()["metrics"]
    assert m["numFilesRemoved"] == 3
    assert spark.sql(f"OPTIMIZE silt.`{theirs}`").first()["metrics"]["numFilesRemoved"] == 0
    spark.sql(INSERT.format(t=f"silt.`{theirs}`", n=20000, start=20200, end=20300, files=1))
    spark.sql(f"ALTER TABLE silt.`{theirs}` CLUSTER BY (y)")
    after = run_reference([{"op": "read", "path": theirs}, {"op": "detail", "path": theirs}])
    assert as_rows(after[0]) == rows(spark, theirs) and len(after[0]["rows"]) == 20300
    assert after[1]["clusteringColumns"] == ["y"]
