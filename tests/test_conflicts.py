"""Concurrent writers: conflicts beyond the pairs of test_conflict_table.py (upserts, RESTORE, overwrites, REORG, retries).

Each test pauses one transaction just before it commits (a test hook in the engine,
io.silt.txn.CommitPause), runs the other operation to completion, then lets the first commit: the
outcome cannot depend on timing.
"""
from collections import Counter

import pytest
from pyspark.sql import functions as F

import silt
from conftest import concurrently


def ids(spark, path):
    return Counter(r["id"] for r in spark.read.format("silt").load(path).collect())


def keyed_table(spark, path, dvs, partitioned=False, level="Serializable"):
    parts = "PARTITIONED BY (day)" if partitioned else ""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day INT, v STRING) USING silt {parts} "
              f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{str(dvs).lower()}', 'delta.isolationLevel' = '{level}')")
    (spark.range(0, 1000, numPartitions=2).select("id", (F.col("id") % 3).cast("int").alias("day"), F.lit("old").alias("v"))
     .write.format("silt").mode("append").save(path))


def append(spark, path, rows):
    spark.createDataFrame(rows, "id long, day int, v string").write.format("silt").mode("append").save(path)


def history(spark, path):
    return [(r["operation"], r["isolationLevel"]) for r in spark.sql(f"DESCRIBE HISTORY '{path}'").collect()]


@pytest.mark.parametrize("dvs,level", [(True, "Serializable"), (False, "Serializable"), (True, "WriteSerializable")])
def test_two_upserts_of_the_same_new_key_never_both_commit(spark, tmp_path, dvs, level):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs, level=level)
    upsert = (f"MERGE INTO silt.`{p}` t USING (SELECT 5000L AS id, 1 AS day, 'x' AS v) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    error = concurrently(spark, p, lambda: spark.sql(upsert).collect(), lambda: spark.sql(upsert).collect())
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert isinstance(error, silt.ConcurrentModificationException)
    assert "a concurrent MERGE (version 2)" in str(error) and "that a source row of this MERGE joins" in str(error)
    got = ids(spark, p)
    assert got[5000] == 1 and sum(got.values()) == 1001
    # retried, the upsert now matches the row the other one inserted
    spark.sql(upsert).collect()
    assert ids(spark, p)[5000] == 1


def test_delete_conflicts_with_an_append_only_where_it_read(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True, partitioned=True)
    delete = lambda lo: (lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE day = 1 AND id >= {lo} AND id < {lo + 100}").collect())
    # another partition: both commit
    assert concurrently(spark, p, delete(0), lambda: append(spark, p, [(10, 2, "new")])) is None
    # the same partition, but ids the statistics say cannot match: both commit
    assert concurrently(spark, p, delete(100), lambda: append(spark, p, [(4000, 1, "new")])) is None
    # a file that may hold a row the DELETE read: under Serializable, the DELETE fails
    error = concurrently(spark, p, delete(200), lambda: append(spark, p, [(250, 1, "new")]))
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert "(partition day=1)" in str(error) and "a concurrent WRITE" in str(error)
    got = ids(spark, p)
    assert got[250] == 2 and got[10] == 1 and got[4000] == 1 and got[13] == 0 and got[103] == 0 and got[202] == 1


def test_deletes_on_different_partitions_both_commit_and_on_the_same_rows_do_not(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True, partitioned=True)
    delete = lambda where: (lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE {where}").collect())
    assert concurrently(spark, p, delete("day = 0 AND id % 10 = 1"), delete("day = 1 AND id % 10 = 1")) is None
    # the winner gives a file the loser marks rows of a new deletion vector (remove + add of that file):
    # other rows, and the loser is rebased on it (row-level concurrency); a row both delete, and as in
    # Delta Lake the re-added file is checked first, and may hold rows the loser read
    assert concurrently(spark, p, delete("day = 2 AND id % 10 = 1"), delete("day = 2 AND id = 5")) is None
    error = concurrently(spark, p, delete("day = 2 AND id % 10 = 2"), delete("day = 2 AND id = 32"))
    assert isinstance(error, silt.ConcurrentAppendException), error
    # the winner drops whole files the loser marks rows of, adding none
    error = concurrently(spark, p, delete("day = 2 AND id % 10 = 3"), delete("day = 2"))
    assert isinstance(error, silt.ConcurrentDeleteReadException), error
    assert "a concurrent DELETE" in str(error) and "whose rows this transaction changes" in str(error)
    got = ids(spark, p)
    assert not any(i % 3 == 2 for i in got) and 41 not in got and 1 not in got and 21 not in got and 30 in got


def test_appends_never_conflict_with_appends_or_optimize(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False)
    assert concurrently(spark, p, lambda: append(spark, p, [(1, 1, "a")]), lambda: append(spark, p, [(1, 1, "b")])) is None
    assert concurrently(spark, p, lambda: spark.sql(f"OPTIMIZE '{p}'").collect(),
                        lambda: append(spark, p, [(2, 2, "c")])) is None
    got = ids(spark, p)
    assert got[1] == 3 and got[2] == 2 and sum(got.values()) == 1003


def test_update_conflicts_with_a_concurrent_update_of_the_same_rows(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False)
    update = lambda v: (lambda: spark.sql(f"UPDATE silt.`{p}` SET v = '{v}' WHERE id < 10").collect())
    error = concurrently(spark, p, update("first"), update("second"))
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert "a concurrent UPDATE (version 2)" in str(error) and "rows where (id < 10L)" in str(error)
    assert {r["v"] for r in spark.read.format("silt").load(p).where("id < 10").collect()} == {"second"}


def test_under_write_serializable_a_blind_append_never_conflicts(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True, partitioned=True, level="WriteSerializable")
    delete = lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE day = 1 AND id < 100").collect()
    # the same append that makes the DELETE fail under Serializable (test above)
    assert concurrently(spark, p, delete, lambda: append(spark, p, [(13, 1, "new")])) is None
    got = ids(spark, p)
    assert got[13] == 1 and got[10] == 0  # the appended row stays: it was not there when the DELETE read
    assert history(spark, p)[0] == ("DELETE", "WriteSerializable")
    # a write that is not a blind append (an UPDATE adds rows it read) still conflicts
    error = concurrently(spark, p, lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE day = 1 AND id < 200").collect(),
                         lambda: spark.sql(f"UPDATE silt.`{p}` SET v = 'u' WHERE day = 1 AND id = 103").collect())
    assert isinstance(error, silt.ConcurrentAppendException), error


def test_commits_that_change_no_data_run_at_snapshot_isolation(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False)
    append(spark, p, [(2000, 1, "a")])
    spark.sql(f"OPTIMIZE '{p}'").collect()
    assert history(spark, p)[:3] == [("OPTIMIZE", "SnapshotIsolation"), ("WRITE", "Serializable"), ("WRITE", "Serializable")]


def test_an_isolation_level_delta_does_not_define_is_refused(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False)
    for value in ("Snapshot", "SnapshotIsolation"):
        with pytest.raises(silt.InvalidTableOperationException, match="delta.isolationLevel must be Serializable or WriteSerializable"):
            silt.errors.reraise(lambda: spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.isolationLevel' = '{value}')"))
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('Delta.IsolationLevel' = 'writeserializable')")
    assert history(spark, p)[0] == ("SET TBLPROPERTIES", "WriteSerializable")  # as Delta: the level of the new metadata
    assert spark.sql(f"DESCRIBE DETAIL '{p}'").first()["properties"] == {"Delta.IsolationLevel": "writeserializable", "delta.enableDeletionVectors": "false"}
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 1")
    assert history(spark, p)[0] == ("DELETE", "WriteSerializable")


@pytest.mark.parametrize("paused", ["optimize", "delete"])
def test_optimize_and_a_delete_of_the_same_files_do_not_both_commit(spark, tmp_path, paused):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True)
    optimize = lambda: spark.sql(f"OPTIMIZE '{p}'").collect()
    delete = lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 7").collect()
    first, second = (optimize, delete) if paused == "optimize" else (delete, optimize)
    error = concurrently(spark, p, first, second)
    if paused == "optimize":
        # the rewrite yields: its one bin read the file the DELETE changed, so it commits nothing
        assert error is None
        assert history(spark, p)[0][0] == "DELETE"
    else:
        assert isinstance(error, silt.ConcurrentDeleteReadException), error
    got = ids(spark, p)
    assert sum(got.values()) == (999 if paused == "optimize" else 1000) and all(n == 1 for n in got.values())


def test_merge_conflicts_with_a_delete_of_a_row_it_matches(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True)
    upsert = lambda: spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 10L AS id, 1 AS day, 'x' AS v) s ON t.id = s.id "
                               "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *").collect()
    error = concurrently(spark, p, upsert, lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 10").collect())
    assert isinstance(error, silt.ConcurrentModificationException), error
    assert ids(spark, p)[10] == 0 and sum(ids(spark, p).values()) == 999


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
def test_replace_where_and_an_append_into_the_partition_it_replaces(spark, tmp_path, level):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False, partitioned=True, level=level)
    replace = lambda: (spark.createDataFrame([(1, 1, "replaced")], "id long, day int, v string").write.format("silt")
                       .mode("overwrite").option("replaceWhere", "day = 1").save(p))
    error = concurrently(spark, p, replace, lambda: append(spark, p, [(5000, 1, "appended")]))
    got = {r["id"]: r["v"] for r in spark.read.format("silt").load(p).where("day = 1").collect()}
    if level == "Serializable":
        # the overwrite read partition day = 1, to which the append added a file
        assert isinstance(error, silt.ConcurrentAppendException), error
        assert got[5000] == "appended" and got[1] == "old" and len(got) == 334
    else:
        # a blind append never conflicts: it lands after the overwrite, which did not see it
        assert error is None
        assert got == {1: "replaced", 5000: "appended"}


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
def test_restore_read_the_whole_table(spark, tmp_path, level):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True, partitioned=True, level=level)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 100").collect()  # version 2
    restore = lambda: spark.sql(f"RESTORE TABLE silt.`{p}` TO VERSION AS OF 1").collect()
    # an append into any partition
    error = concurrently(spark, p, restore, lambda: append(spark, p, [(5000, 2, "new")]))
    got = ids(spark, p)
    if level == "Serializable":
        assert isinstance(error, silt.ConcurrentAppendException), error
        assert "the whole table" in str(error)
        assert got[5000] == 1 and got[5] == 0 and sum(got.values()) == 901
    else:
        assert error is None  # the blind append serializes after the restore
        assert got[5000] == 1 and got[5] == 1 and sum(got.values()) == 1001
    # a DELETE of rows the restore brings back conflicts under both levels
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 100 OR id = 5000").collect()
    error = concurrently(spark, p, restore, lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 700").collect())
    assert isinstance(error, silt.ConcurrentModificationException), error
    got = ids(spark, p)
    assert got[700] == 0 and got[5] == 0 and sum(got.values()) == 899


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
def test_dynamic_partition_overwrite_read_the_partitions_it_replaces(spark, tmp_path, level):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False, partitioned=True, level=level)
    overwrite = lambda: (spark.createDataFrame([(1, 1, "replaced")], "id long, day int, v string").write.format("silt")
                         .mode("overwrite").option("partitionOverwriteMode", "dynamic").save(p))
    # an append into another partition: both commit
    assert concurrently(spark, p, overwrite, lambda: append(spark, p, [(5000, 2, "other")])) is None
    assert ids(spark, p)[5000] == 1 and sum(ids(spark, p).values()) == 669
    # an append into the partition it replaces
    error = concurrently(spark, p, overwrite, lambda: append(spark, p, [(6000, 1, "same")]))
    got = {r["id"]: r["v"] for r in spark.read.format("silt").load(p).where("day = 1").collect()}
    if level == "Serializable":
        assert isinstance(error, silt.ConcurrentAppendException), error
        assert "partitions it replaces" in str(error)
        assert got == {1: "replaced", 6000: "same"}  # the first overwrite's rows and the append
    else:
        assert error is None
        assert got == {1: "replaced", 6000: "same"}  # the overwrite, then the append it did not see
    # an overwrite paused while another overwrite replaces the same partition: never both (delete-delete)
    error = concurrently(spark, p, overwrite, overwrite)
    assert isinstance(error, silt.ConcurrentModificationException), error
    assert {r["id"] for r in spark.read.format("silt").load(p).where("day = 1").collect()} == {1}


def test_reorg_commits_over_changes_to_files_it_does_not_rewrite(spark, tmp_path):
    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=True, partitioned=True)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 10 = 3").collect()  # a DV in every file
    reorg = lambda: spark.sql(f"REORG TABLE silt.`{p}` WHERE day = 1 APPLY (PURGE)").collect()
    # another partition's files get new deletion vectors: the REORG rebases and commits
    assert concurrently(spark, p, reorg, lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE day = 2 AND id < 100").collect()) is None
    assert history(spark, p)[0] == ("REORG", "SnapshotIsolation")
    # a file it rewrites gets a new deletion vector: committing it would bring the deleted row back,
    # so that bin yields (here the only one: nothing is committed)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 4").collect()  # day 1 has deletion vectors again
    assert concurrently(spark, p, reorg, lambda: spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 7").collect()) is None
    assert history(spark, p)[0][0] == "DELETE"
    got = ids(spark, p)
    assert got[7] == 0 and got[4] == 0 and got[13] == 0 and got[10] == 1 and got[101] == 1 and got[2] == 0


def test_commit_attempts_and_backoff_are_settings(spark, tmp_path):
    import time

    p = str(tmp_path / "t")
    keyed_table(spark, p, dvs=False)
    try:
        spark.conf.set("spark.silt.commit.maxAttempts", "1")
        error = concurrently(spark, p, lambda: append(spark, p, [(5001, 1, "a")]), lambda: append(spark, p, [(5002, 1, "b")]))
        assert isinstance(error, silt.ConcurrentModificationException), error
        assert "after 1 attempts (spark.silt.commit.maxAttempts)" in str(error)
        assert ids(spark, p)[5001] == 0 and ids(spark, p)[5002] == 1
        # two attempts suffice for one concurrent commit; the retry waits 0.5 x 2000 ms at least
        spark.conf.set("spark.silt.commit.maxAttempts", "2")
        spark.conf.set("spark.silt.commit.retryBackoffMs", "2000")
        times = {}

        def first():
            append(spark, p, [(5003, 1, "c")])
            times["first"] = time.monotonic()

        def second():
            append(spark, p, [(5004, 1, "d")])
            times["second"] = time.monotonic()

        assert concurrently(spark, p, first, second) is None
        assert times["first"] - times["second"] >= 1.0
        assert ids(spark, p)[5003] == 1 and ids(spark, p)[5004] == 1
    finally:
        spark.conf.unset("spark.silt.commit.maxAttempts")
        spark.conf.unset("spark.silt.commit.retryBackoffMs")
