"""Row tracking: every file Silt adds gets fresh row ids above the table's high-water mark and its
commit's version; a row keeps its id through UPDATE, MERGE, DELETE, OPTIMIZE and ZORDER, with and
without deletion vectors; turning it on backfills the files already there; concurrent writers get
disjoint ids."""
import json
from pathlib import Path

import pytest

import silt
from conftest import concurrently
from test_writes import raises_silt

ROWS = ("SELECT id, v, _metadata.row_id AS row_id, _metadata.row_commit_version AS version "
        "FROM silt.`{p}` ORDER BY id")


def log_actions(path):
    out = []
    for f in sorted(Path(path, "_delta_log").glob("*.json")):
        out.append([json.loads(line) for line in f.read_text().splitlines() if line.strip()])
    return out


def high_water_mark(path):
    marks = [json.loads(a["domainMetadata"]["configuration"])["rowIdHighWaterMark"]
             for commit in log_actions(path) for a in commit
             if "domainMetadata" in a and a["domainMetadata"]["domain"] == "delta.rowTracking"]
    return marks[-1] if marks else None


def ids(spark, p):
    """id -> (row id, row commit version) of every row."""
    return {r.id: (r.row_id, r.version) for r in spark.sql(ROWS.format(p=p)).collect()}


def tracked_table(spark, p, dvs=True, rows=((1, "a"), (2, "b"), (3, "c"))):
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt TBLPROPERTIES "
              f"(delta.enableRowTracking = true, delta.enableDeletionVectors = {str(dvs).lower()})")
    values = ", ".join(f"({i}, '{v}')" for i, v in rows)
    spark.sql(f"INSERT INTO silt.`{p}` VALUES {values}")


@pytest.mark.smoke
def test_new_rows_get_fresh_ids_and_their_commit_version(spark, tmp_path):
    p = str(tmp_path / "t")
    tracked_table(spark, p)
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (4, 'd'), (5, 'e')")
    got = ids(spark, p)
    assert sorted(r for r, _ in got.values()) == [0, 1, 2, 3, 4]
    assert {i: v for i, (_, v) in got.items()} == {1: 1, 2: 1, 3: 1, 4: 2, 5: 2}
    assert high_water_mark(p) == 4
    protocol = next(a["protocol"] for a in log_actions(p)[0] if "protocol" in a)
    assert {"rowTracking", "domainMetadata"} <= set(protocol["writerFeatures"])
    config = next(a["metaData"] for a in log_actions(p)[0] if "metaData" in a)["configuration"]
    assert config["delta.rowTracking.materializedRowIdColumnName"].startswith("_row-id-col-")
    assert config["delta.rowTracking.materializedRowCommitVersionColumnName"].startswith("_row-commit-version-col-")
    for commit in log_actions(p)[1:]:
        for a in commit:
            if "add" in a:
                assert a["add"]["baseRowId"] is not None and a["add"]["defaultRowCommitVersion"] is not None


@pytest.mark.smoke
@pytest.mark.parametrize("dvs", [True, False], ids=["deletion-vectors", "copy-on-write"])
def test_rows_keep_their_ids_through_dml_and_optimize(spark, tmp_path, dvs):
    p = str(tmp_path / "t")
    tracked_table(spark, p, dvs=dvs, rows=[(i, f"v{i}") for i in range(1, 9)])
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (9, 'v9'), (10, 'v10')")
    before = ids(spark, p)

    spark.sql(f"UPDATE silt.`{p}` SET v = 'updated' WHERE id IN (2, 9)")
    v_update = spark.sql(f"DESCRIBE HISTORY silt.`{p}` LIMIT 1").first().version
    after = ids(spark, p)
    assert {i: r for i, (r, _) in after.items()} == {i: r for i, (r, _) in before.items()}
    assert after[2][1] == after[9][1] == v_update
    # the hidden version column holds null for the updated rows: a filter on it is not pushed to Parquet
    changed = spark.sql(f"SELECT id FROM silt.`{p}` WHERE _metadata.row_commit_version = {v_update} ORDER BY id")
    assert [r.id for r in changed.collect()] == [2, 9]
    assert all(after[i] == before[i] for i in before if i not in (2, 9))

    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 3")
    spark.createDataFrame([(4, "merged"), (11, "new")], "id INT, v STRING").createOrReplaceTempView("src")
    spark.sql(f"MERGE INTO silt.`{p}` t USING src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    v_merge = spark.sql(f"DESCRIBE HISTORY silt.`{p}` LIMIT 1").first().version
    merged = ids(spark, p)
    assert 3 not in merged
    assert merged[4] == (before[4][0], v_merge)
    assert merged[11][0] > max(r for r, _ in before.values()) and merged[11][1] == v_merge
    assert all(merged[i] == after[i] for i in after if i not in (3, 4))

    spark.sql(f"OPTIMIZE silt.`{p}`")
    assert ids(spark, p) == merged
    spark.sql(f"OPTIMIZE silt.`{p}` ZORDER BY (v)")
    assert ids(spark, p) == merged
    assert len(set(r for r, _ in merged.values())) == len(merged)


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_turning_it_on_backfills_the_files_already_there(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3, 'c')")
    files = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first().numFiles
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.enableRowTracking = true)")
    enabling = log_actions(p)[-1]
    readded = [a["add"] for a in enabling if "add" in a]
    assert len(readded) == files and all(not a["dataChange"] and a["baseRowId"] is not None for a in readded)
    got = ids(spark, p)
    assert sorted(r for r, _ in got.values()) == [0, 1, 2]
    spark.sql(f"UPDATE silt.`{p}` SET v = 'B' WHERE id = 2")
    assert ids(spark, p)[2][0] == got[2][0]
    assert spark.sql(f"SELECT count(*) FROM silt.`{p}`").first()[0] == 3


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_removes_carry_the_ids_of_their_files(spark, tmp_path):
    p = str(tmp_path / "t")
    tracked_table(spark, p, dvs=False)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 1")
    adds = {a["add"]["path"]: a["add"] for c in log_actions(p) for a in c if "add" in a}
    removes = [a["remove"] for a in log_actions(p)[-1] if "remove" in a]
    assert removes and all(r["baseRowId"] == adds[r["path"]]["baseRowId"] and
                           r["defaultRowCommitVersion"] == adds[r["path"]]["defaultRowCommitVersion"] for r in removes)
    # a checkpoint keeps them, and the table reads the same from it
    before = ids(spark, p)
    spark.sql(f"CHECKPOINT silt.`{p}`")
    import pyarrow.parquet as pq
    checkpoint = pq.read_table(next(Path(p, "_delta_log").glob("*.checkpoint.parquet"))).to_pylist()
    tombstones = [r["remove"] for r in checkpoint if r.get("remove")]
    assert sorted((t["path"], t["baseRowId"]) for t in tombstones) == sorted((r["path"], r["baseRowId"]) for r in removes)
    assert ids(spark, p) == before


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_concurrent_appends_get_disjoint_ids(spark, tmp_path):
    p = str(tmp_path / "t")
    tracked_table(spark, p)
    err = concurrently(spark, p, lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (10, 'first'), (11, 'first')"),
                       lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (20, 'second')"))
    assert err is None
    got = ids(spark, p)
    row_ids = [r for r, _ in got.values()]
    assert len(row_ids) == 6 and len(set(row_ids)) == 6
    assert high_water_mark(p) == max(row_ids) == 5
    # the first writer lost the race for version 2, so its rows are stamped with version 3
    assert got[20][1] == 2 and got[10][1] == got[11][1] == 3


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_suspended_and_supported_only(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt TBLPROPERTIES "
              "(delta.feature.rowTracking = 'supported')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a')")
    add = next(a["add"] for a in log_actions(p)[-1] if "add" in a)
    assert add["baseRowId"] == 0 and add["defaultRowCommitVersion"] == 1
    # supported but not enabled: the ids are not readable as stable ones
    with pytest.raises(Exception):
        spark.sql(f"SELECT _metadata.row_id FROM silt.`{p}`").collect()
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.rowTrackingSuspended = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2, 'b')")
    add = next(a["add"] for a in log_actions(p)[-1] if "add" in a)
    assert "baseRowId" not in add
    raises_silt(silt.errors.InvalidTableOperationException, lambda: spark.sql(
        f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.enableRowTracking = true)"))


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_with_column_mapping_and_partitions(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING, part STRING) USING silt PARTITIONED BY (part) TBLPROPERTIES "
              "(delta.enableRowTracking = true, delta.columnMapping.mode = 'name', delta.enableDeletionVectors = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a', 'x'), (2, 'b', 'y'), (3, 'c', 'x')")
    before = ids(spark, p)
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN v TO w")
    spark.sql(f"UPDATE silt.`{p}` SET w = 'B' WHERE id = 2")
    spark.sql(f"OPTIMIZE silt.`{p}`")
    after = {r.id: r.row_id for r in spark.sql(
        f"SELECT id, _metadata.row_id AS row_id FROM silt.`{p}` WHERE _metadata.row_id >= 0").collect()}
    assert after == {i: r for i, (r, _) in before.items()}
    assert spark.sql(f"SELECT id FROM silt.`{p}` WHERE _metadata.row_id = {before[3][0]}").first().id == 3


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_a_clone_keeps_the_ids_and_continues_above_them(spark, tmp_path):
    src, dst = str(tmp_path / "src"), str(tmp_path / "dst")
    tracked_table(spark, src)
    spark.sql(f"CREATE TABLE silt.`{dst}` SHALLOW CLONE silt.`{src}`")
    assert ids(spark, dst) == ids(spark, src)
    spark.sql(f"INSERT INTO silt.`{dst}` VALUES (4, 'd')")
    assert ids(spark, dst)[4][0] == 3 and high_water_mark(dst) == 3


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_restore_brings_back_the_ids_of_the_restored_rows(spark, tmp_path):
    p = str(tmp_path / "t")
    tracked_table(spark, p, dvs=False)
    before = ids(spark, p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 2")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (4, 'd')")
    spark.sql(f"RESTORE TABLE silt.`{p}` TO VERSION AS OF 1")
    assert ids(spark, p) == before
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (5, 'e')")
    assert ids(spark, p)[5][0] > max(r for r, _ in before.values()) + 1


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_row_and_batch_readers_give_the_same_ids(spark, tmp_path):
    p = str(tmp_path / "t")
    tracked_table(spark, p, rows=[(i, f"v{i}") for i in range(1, 7)])
    spark.sql(f"UPDATE silt.`{p}` SET v = 'x' WHERE id % 2 = 0")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (7, 'g')")
    batches = ids(spark, p)
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", "false")
    try:
        assert ids(spark, p) == batches
    finally:
        spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
    assert len({r for r, _ in batches.values()}) == 7
