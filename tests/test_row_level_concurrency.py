"""Row-level concurrency: DELETE, UPDATE and MERGE that change different rows of the same files both commit.

One statement is paused just before its commit (the engine's CommitPause hook), the other runs
whole, then the first commits: with deletion vectors, it is rebased on the winner (the two vectors
united) when the two marked different rows, and still fails when they share a row or when the
winner rewrote a file it changes. Every table here has its ids spread over all its files, so that
statements on disjoint id ranges touch the same files.
"""
import json
import os
from collections import Counter

import pytest
from pyspark.sql import functions as F

import silt
from conftest import concurrently

N = 400
SECOND_TIER = pytest.mark.full  # make test-full; make test keeps a slice


def spread_table(spark, path, level="WriteSerializable", dvs=True, files=4, rows=N, row_ids=False):
    """A table whose every file holds ids from the whole range (row i in file i % files)."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING) USING silt TBLPROPERTIES ("
              f"'delta.enableDeletionVectors' = '{str(dvs).lower()}', 'delta.isolationLevel' = '{level}'"
              f"{', ' + chr(39) + 'delta.enableRowTracking' + chr(39) + ' = true' if row_ids else ''})")
    per_file = rows // files  # task k of the range holds ids k * per_file until (k + 1) * per_file: renumbered
    (spark.range(0, rows, numPartitions=files)
     .select(((F.col("id") % per_file) * files + F.floor(F.col("id") / per_file)).alias("id"), F.lit("old").alias("v"))
     .write.format("silt").mode("append").save(path))


def rows_of(spark, path):
    return Counter((r["id"], r["v"]) for r in spark.read.format("silt").load(path).collect())


def sql(spark, statement):
    return lambda: spark.sql(statement).collect()


def history(spark, path):
    return [r["operation"] for r in spark.sql(f"DESCRIBE HISTORY '{path}'").orderBy("version").collect()]


def model(rows, deleted=(), updated=(), suffix="|u", inserted=()):
    out = Counter({(i, v + suffix if i in updated else v): 1 for (i, v) in rows if i not in deleted})
    out.update((i, v) for i, v in inserted)
    return out


BASE = [(i, "old") for i in range(N)]


def commit(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f]


def live_files(spark, path):
    return spark.sql(f"DESCRIBE DETAIL '{path}'").first()["numFiles"]


@pytest.mark.smoke
def test_updates_of_different_rows_of_the_same_files_both_commit(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p)
    error = concurrently(spark, p, sql(spark, f"UPDATE silt.`{p}` SET v = concat(v, '|u') WHERE id < 100"),
                         sql(spark, f"UPDATE silt.`{p}` SET v = concat(v, '|u') WHERE id >= 300"))
    assert error is None
    assert rows_of(spark, p) == model(BASE, updated=set(range(100)) | set(range(300, N)))
    assert history(spark, p)[-2:] == ["UPDATE", "UPDATE"]
    # the last commit keeps each of the 4 files once, its deletion vector the union of both UPDATEs' (25 rows each)
    kept = [a["add"] for a in commit(p, 3) if "add" in a and a["add"].get("deletionVector")]
    assert sorted(a["deletionVector"]["cardinality"] for a in kept) == [50, 50, 50, 50]


@SECOND_TIER
def test_deletes_of_different_rows_of_the_same_files_both_commit(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p)
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"),
                        sql(spark, f"DELETE FROM silt.`{p}` WHERE id >= 300")) is None
    assert rows_of(spark, p) == model(BASE, deleted=set(range(100)) | set(range(300, N)))
    assert live_files(spark, p) == 4


MERGE_UPSERT = ("MERGE INTO {t} t USING (SELECT id, 'm' AS v FROM range(300, 410)) s ON t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = concat(t.v, '|u') WHEN NOT MATCHED THEN INSERT *")


@pytest.mark.parametrize("paused,winner", [
    (MERGE_UPSERT, "DELETE FROM {t} WHERE id < 100"),
    pytest.param("DELETE FROM {t} WHERE id < 100", "UPDATE {t} SET v = concat(v, '|u') WHERE id >= 300",
                 marks=SECOND_TIER),
    pytest.param("UPDATE {t} SET v = concat(v, '|u') WHERE id >= 300", "DELETE FROM {t} WHERE id < 100",
                 marks=SECOND_TIER),
    pytest.param("DELETE FROM {t} WHERE id < 100", MERGE_UPSERT, marks=SECOND_TIER),
])
def test_dml_on_disjoint_rows_both_commit(spark, tmp_path, paused, winner):
    p = str(tmp_path / "t")
    spread_table(spark, p)
    t = f"silt.`{p}`"
    assert concurrently(spark, p, sql(spark, paused.format(t=t)), sql(spark, winner.format(t=t))) is None
    assert rows_of(spark, p) == model(BASE, deleted=set(range(100)), updated=set(range(300, N)),
                                      inserted=[(i, "m") for i in range(N, 410) if "MERGE" in paused + winner])


def test_a_row_both_change_still_conflicts_with_deltas_exception(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p)
    error = concurrently(spark, p, sql(spark, f"UPDATE silt.`{p}` SET v = 'a' WHERE id BETWEEN 10 AND 20"),
                         sql(spark, f"DELETE FROM silt.`{p}` WHERE id = 15"))
    # As in Delta Lake: the file given a new deletion vector may hold rows the UPDATE read.
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert rows_of(spark, p) == model(BASE, deleted={15})
    error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id = 16"),
                         sql(spark, f"DELETE FROM silt.`{p}` WHERE id = 16"))
    assert isinstance(error, silt.ConcurrentModificationException), error
    assert rows_of(spark, p) == model(BASE, deleted={15, 16})


def test_rebased_twice_over_two_winners_and_a_file_whose_every_row_goes(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p, files=1, rows=30)
    base = [(i, "old") for i in range(30)]

    def two_winners():
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 10").collect()
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id >= 20").collect()

    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id BETWEEN 10 AND 14"), two_winners) is None
    assert rows_of(spark, p) == model(base, deleted=set(range(15)) | set(range(20, 30)))
    # the last five rows of the file, deleted while another DELETE took the rest: the file goes
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id >= 15 AND id != 17"),
                        sql(spark, f"DELETE FROM silt.`{p}` WHERE id = 17")) is None
    assert rows_of(spark, p) == Counter() and live_files(spark, p) == 0


def test_serializable_still_refuses_an_insert_the_condition_would_have_matched(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p, level="Serializable")
    insert = lambda i: (lambda: spark.createDataFrame([(i, "new")], "id long, v string")  # noqa: E731
                        .write.format("silt").mode("append").save(p))
    error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"), insert(50))
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"), insert(5000)) is None
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable')")
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 200"), insert(150)) is None
    assert rows_of(spark, p) == model(BASE, deleted=set(range(200)), inserted=[(150, "new"), (5000, "new")])


def test_what_row_level_concurrency_does_not_rebase(spark, tmp_path):
    # OPTIMIZE rewrote the files the DELETE marks rows of, and without row ids its rows cannot be followed
    p = str(tmp_path / "opt")
    spread_table(spark, p)
    error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"), sql(spark, f"OPTIMIZE '{p}'"))
    assert isinstance(error, silt.ConcurrentDeleteReadException), error
    assert "a concurrent OPTIMIZE" in str(error) and "needs row tracking" in str(error)
    # a DELETE of whole files (a partition-only condition) removes rows with them
    p = str(tmp_path / "whole")
    partitioned_table(spark, p)
    error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE day = 1 AND id < 50"),
                         sql(spark, f"DELETE FROM silt.`{p}` WHERE day = 1"))
    assert isinstance(error, silt.ConcurrentDeleteReadException), error
    assert "rewrote or removed" in str(error)
    # copy-on-write (no deletion vectors): the files themselves are replaced
    p = str(tmp_path / "cow")
    spread_table(spark, p, dvs=False)
    error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"),
                         sql(spark, f"DELETE FROM silt.`{p}` WHERE id >= 300"))
    assert isinstance(error, silt.ConcurrentModificationException), error
    # a MERGE whose matched rows are not all changed inserts depending on rows it leaves alone
    p = str(tmp_path / "merge")
    spread_table(spark, p)
    merge = (f"MERGE INTO silt.`{p}` t USING (SELECT id, 'm' AS v FROM range(0, 10)) s ON t.id = s.id "
             "WHEN MATCHED AND t.id < 5 THEN UPDATE SET v = 'u' WHEN NOT MATCHED THEN INSERT *")
    error = concurrently(spark, p, sql(spark, merge), sql(spark, f"DELETE FROM silt.`{p}` WHERE id >= 300"))
    assert isinstance(error, silt.ConcurrentModificationException), error


@SECOND_TIER
def test_the_setting_turns_it_off(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p)
    spark.conf.set("spark.silt.rowLevelConcurrency.enabled", "false")
    try:
        error = concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"),
                             sql(spark, f"DELETE FROM silt.`{p}` WHERE id >= 300"))
    finally:
        spark.conf.unset("spark.silt.rowLevelConcurrency.enabled")
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert rows_of(spark, p) == model(BASE, deleted=set(range(300, N)))


def partitioned_table(spark, path):
    """Two files in each of the partitions day = 0 and day = 1, ids spread over both."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day INT, v STRING) USING silt PARTITIONED BY (day) "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    for half in range(2):
        (spark.range(200 * half, 200 * (half + 1), 1, numPartitions=1)
         .select("id", (F.col("id") % 2).cast("int").alias("day"), F.lit("old").alias("v"))
         .write.format("silt").mode("append").save(path))


@pytest.mark.smoke
def test_an_optimize_whose_files_a_dml_changed_yields_those_bins_and_commits_the_others(spark, tmp_path):
    p = str(tmp_path / "t")
    partitioned_table(spark, p)
    before = rows_of(spark, p)
    optimize = lambda: spark.sql(f"OPTIMIZE '{p}'").collect()  # noqa: E731 - one bin per partition
    assert concurrently(spark, p, optimize, sql(spark, f"DELETE FROM silt.`{p}` WHERE day = 1 AND id < 50")) is None
    after = Counter({r: n for r, n in before.items() if not (r[0] % 2 == 1 and r[0] < 50)})
    assert rows_of(spark, p) == after
    last = spark.sql(f"DESCRIBE HISTORY '{p}'").first()
    assert last["operation"] == "OPTIMIZE"
    assert last["operationMetrics"]["numRemovedFiles"] == "2" and last["operationMetrics"]["numAddedFiles"] == "1"
    files = {r["day"]: r["n"] for r in spark.sql(f"SELECT day, count(DISTINCT _metadata.file_path) AS n FROM silt.`{p}` "
                                                  "GROUP BY day").collect()}
    assert files == {0: 1, 1: 2}  # day 0 compacted; day 1 kept its files and the DELETE's deletion vectors
    # an OPTIMIZE racing another over the same files yields whole: no error, no row twice
    optimize_day_1 = lambda: spark.sql(f"OPTIMIZE '{p}' WHERE day = 1").collect()  # noqa: E731
    version = spark.sql(f"DESCRIBE HISTORY '{p}'").first()["version"]
    assert concurrently(spark, p, optimize_day_1, optimize_day_1) is None
    assert spark.sql(f"DESCRIBE HISTORY '{p}'").first()["version"] == version + 1
    assert rows_of(spark, p) == after
    # the bin that yielded left no file behind
    data_files = [f for _, _, fs in os.walk(p) for f in fs if f.endswith(".parquet")]
    referenced = spark.sql(f"SELECT count(DISTINCT _metadata.file_path) AS n FROM silt.`{p}`").first()["n"]
    assert referenced == 2 and len(data_files) == 2 + 4  # live, and the four the two OPTIMIZEs removed


def row_ids(spark, path):
    return {r["id"]: r["row_id"] for r in spark.sql(f"SELECT id, _metadata.row_id AS row_id FROM silt.`{path}`").collect()}


@pytest.mark.smoke
def test_marks_on_files_optimize_rewrote_move_to_its_new_files_by_row_id(spark, tmp_path):
    p = str(tmp_path / "t")
    spread_table(spark, p, row_ids=True)
    ids = row_ids(spark, p)
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"), sql(spark, f"OPTIMIZE '{p}'")) is None
    assert rows_of(spark, p) == model(BASE, deleted=set(range(100)))
    assert history(spark, p)[-2:] == ["OPTIMIZE", "DELETE"]
    assert live_files(spark, p) == 1  # the DELETE's deletion vector is on the file OPTIMIZE wrote
    assert row_ids(spark, p) == {i: r for i, r in ids.items() if i >= 100}
    # an UPDATE whose files a ZORDER rewrote, then another DELETE marked other rows of the new file
    def rewrite_then_delete():
        spark.sql(f"OPTIMIZE '{p}' ZORDER BY (v)").collect()
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id >= 390").collect()

    assert concurrently(spark, p, sql(spark, f"UPDATE silt.`{p}` SET v = concat(v, '|u') WHERE id BETWEEN 200 AND 299"),
                        rewrite_then_delete) is None
    assert rows_of(spark, p) == model(BASE, deleted=set(range(100)) | set(range(390, N)), updated=set(range(200, 300)))
    assert row_ids(spark, p) == {i: r for i, r in ids.items() if 100 <= i < 390}


@pytest.mark.full
@pytest.mark.reference
def test_the_reference_and_delta_rs_read_what_rebases_and_moves_committed(spark, tmp_path):
    from test_interop import result_on_reference
    from test_interop_utilities import read_delta_rs

    p = str(tmp_path / "t")
    spread_table(spark, p, row_ids=True)
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id < 100"),
                        sql(spark, f"UPDATE silt.`{p}` SET v = concat(v, '|u') WHERE id >= 300")) is None
    assert concurrently(spark, p, sql(spark, f"DELETE FROM silt.`{p}` WHERE id BETWEEN 100 AND 149"),
                        sql(spark, f"OPTIMIZE '{p}'")) is None
    want = sorted((i, v) for (i, v), n in rows_of(spark, p).items() for _ in range(n))
    assert len(want) == N - 150
    program = ("result = sorted((r['id'], r['v']) for r in "
               "spark.read.format('delta').load(path).select('id', 'v').collect())")
    assert [tuple(r) for r in result_on_reference(program, path=p)] == want
    assert sorted((r["id"], r["v"]) for r in read_delta_rs(p).to_pylist()) == want
