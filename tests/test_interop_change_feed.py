"""The change data feed across engines: one history of INSERT / DELETE / UPDATE / MERGE / OPTIMIZE
run by Silt and by the reference Delta Lake gives the same change rows; each engine reads the
other's feed; delta-rs reads Silt's; Silt reads the feed of the conformance table with deletion
vectors as the reference engine does."""
import shutil

import pytest

from conftest import CONFORMANCE_DIR
from test_interop import run_reference

pytestmark = pytest.mark.full  # second tier: make test-full

STEPS = [
    "CREATE TABLE {t} (id BIGINT, v STRING, p INT) USING {fmt} PARTITIONED BY (p) "
    "TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'delta.enableDeletionVectors' = '{dvs}')",
    "INSERT INTO {t} SELECT id, CONCAT('v', id), CAST(id % 3 AS INT) FROM range(0, 30)",
    "DELETE FROM {t} WHERE id % 7 = 0",
    "DELETE FROM {t} WHERE p = 2",
    "UPDATE {t} SET v = CONCAT(v, '!') WHERE id % 5 = 1",
    "MERGE INTO {t} t USING (SELECT id, CONCAT('m', id) v, CAST(id % 3 AS INT) p FROM range(20, 40)) s "
    "ON t.id = s.id WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET * "
    "WHEN NOT MATCHED AND s.p < 2 THEN INSERT *",
    "OPTIMIZE {t}",
    "INSERT INTO {t} VALUES (100, 'late', 0)",
]
COLUMNS = ["id", "v", "p", "_change_type", "_commit_version"]
CONFORMANCE = "kernelrs__cdf-table-with-dv"


def as_set(rows):
    return sorted(tuple(None if v is None else str(v) for v in r) for r in rows)


def silt_changes(spark, path, start=0, columns=COLUMNS):
    df = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", start).load(path)
    return as_set(df.select(*columns).collect())


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("interop_cdf")
    out = {}
    ops = []
    conformance = str(root / CONFORMANCE)
    shutil.copytree(CONFORMANCE_DIR / "tables" / CONFORMANCE, conformance)
    for dvs in ("true", "false"):
        silt_path, ref_path = str(root / f"silt_{dvs}"), str(root / f"ref_{dvs}")
        for step in STEPS:
            spark.sql(step.format(t=f"silt.`{silt_path}`", fmt="silt", dvs=dvs))
        ops.append({"op": "sql", "statements": [s.format(t=f"delta.`{ref_path}`", fmt="delta", dvs=dvs) for s in STEPS]})
        ops.append({"op": "changes", "path": ref_path, "start": 0, "columns": COLUMNS})
        ops.append({"op": "changes", "path": silt_path, "start": 0, "columns": COLUMNS})
        out[dvs] = (silt_path, ref_path)
    ops.append({"op": "changes", "path": conformance, "start": 0, "columns": ["value", "_change_type", "_commit_version"]})
    results = run_reference(ops)
    assert all(r["ok"] for r in results), [r.get("error") for r in results if not r["ok"]]
    feeds = [r["rows"] for r in results if r["op"]["op"] == "changes"]
    return {"paths": out, "ref_own": {"true": feeds[0], "false": feeds[2]},
            "ref_reads_silt": {"true": feeds[1], "false": feeds[3]}, "conformance": (conformance, feeds[4])}


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_silt_and_the_reference_record_the_same_changes(spark, tables, dvs):
    silt_path, _ = tables["paths"][dvs]
    ours = silt_changes(spark, silt_path)
    assert ours == as_set(tables["ref_own"][dvs])
    # as the issue asks: the same (key, change type, version) sets, and nothing from OPTIMIZE (version 6)
    assert {r[4] for r in ours} == {"1", "2", "3", "4", "5", "7"}


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_each_engine_reads_the_others_feed(spark, tables, dvs):
    silt_path, ref_path = tables["paths"][dvs]
    assert as_set(tables["ref_reads_silt"][dvs]) == silt_changes(spark, silt_path)
    assert silt_changes(spark, ref_path) == as_set(tables["ref_own"][dvs])


def deltalake_changes(path):
    import pyarrow as pa
    from deltalake import DeltaTable
    feed = pa.table(DeltaTable(path).load_cdf(starting_version=0))
    return as_set(zip(*[feed.column(c).to_pylist() for c in COLUMNS]))


@pytest.mark.parametrize("dvs", ["true", "false"])
def test_deltalake_reads_silts_feed(spark, tables, dvs):
    silt_path, ref_path = tables["paths"][dvs]
    ours, theirs = silt_changes(spark, silt_path), deltalake_changes(silt_path)
    if dvs == "false":
        assert theirs == ours
        return
    # delta-rs ignores the deletion vector of a removed file (version 3 removes such files): it
    # reports the file's rows deleted earlier and drops others, on the reference engine's table as
    # on Silt's. Every other version agrees.
    without_v3 = lambda rows: [r for r in rows if r[4] != "3"]
    assert without_v3(theirs) == without_v3(ours)
    assert without_v3(deltalake_changes(ref_path)) == without_v3(as_set(tables["ref_own"][dvs]))


def test_silt_reads_the_conformance_feed_with_deletion_vectors(spark, tables):
    """Each commit of this table gives its one file another deletion vector. Its values are unique,
    so its feed is the difference between consecutive versions."""
    import pyarrow as pa
    from deltalake import DeltaTable
    path, reference_rows = tables["conformance"]
    columns = ["value", "_change_type", "_commit_version"]
    ours = silt_changes(spark, path, columns=columns)
    states = [{r.value for r in spark.read.format("silt").option("versionAsOf", v).load(path).collect()}
              for v in range(7)]
    expected = [(x, "insert", 0) for x in states[0]] + [
        (x, kind, v) for v in range(1, 7)
        for kind, values in (("delete", states[v - 1] - states[v]), ("insert", states[v] - states[v - 1]))
        for x in values]
    assert ours == as_set(expected)
    feed = pa.table(DeltaTable(path).load_cdf(starting_version=0))
    assert as_set(zip(*[feed.column(c).to_pylist() for c in columns])) == ours
    # The reference engine (delta-spark 4.4) leaves out row 3's delete at version 5 and its return at
    # version 6 (a deletion vector replaced by a disjoint one, then dropped); delta-rs and the
    # table's own versions agree with Silt. The other versions agree.
    assert [r for r in as_set(reference_rows) if r[2] not in ("5", "6")] == [r for r in ours if r[2] not in ("5", "6")]
