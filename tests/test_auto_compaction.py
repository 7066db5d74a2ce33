"""Auto compaction, as Delta Lake's `delta.autoOptimize.autoCompact`: after a commit that added files,
each partition it wrote to that holds at least `minNumFiles` small files is compacted in a commit of
its own (OPTIMIZE, auto = true). The user's commit never depends on it."""
import json

import pytest

from test_interop import result_on_reference, result_on_silt

# Appends of n one-task files, with the files the table holds after each (run on both engines).
PROGRAM = """
def files(p): return spark.sql(f"DESCRIBE DETAIL delta.`{p}`").first().numFiles
out = []
spark.conf.set("spark.databricks.delta.autoCompact.enabled", "true")
def case(name, appends, min_num=None):
    if min_num is None: spark.conf.unset("spark.databricks.delta.autoCompact.minNumFiles")
    else: spark.conf.set("spark.databricks.delta.autoCompact.minNumFiles", str(min_num))
    path = f"{root}/{name}"
    res = []
    for n in appends:
        spark.sql(f"SELECT id FROM range(0, {n * 10}, 1, {n})").write.format("delta").mode("append").save(path)
        res.append(files(path))
    out.append(res)
try:
    case("a", [1, 1, 1, 1, 1, 1], 5)
    case("f", [1, 1], None)
    case("g", [1, 1, 1], 2)
finally:
    spark.conf.unset("spark.databricks.delta.autoCompact.enabled")
    spark.conf.unset("spark.databricks.delta.autoCompact.minNumFiles")
result = out
"""
EXPECTED = [[1, 2, 3, 4, 1, 2], [1, 2], [1, 1, 1]]


def files(spark, path):
    return spark.sql(f"DESCRIBE DETAIL delta.`{path}`").first().numFiles


def history(spark, path):
    return spark.sql(f"DESCRIBE HISTORY delta.`{path}`").orderBy("version").collect()


def test_a_partition_reaching_min_num_files_small_files_is_compacted(spark, tmp_path):
    assert result_on_silt(spark, PROGRAM, root=str(tmp_path)) == EXPECTED


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_compacts_the_same_appends(tmp_path):
    assert result_on_reference(PROGRAM, root=str(tmp_path)) == EXPECTED


@pytest.mark.smoke
def test_only_the_partitions_written_to_and_recorded_as_delta_records_it(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, p INT) USING delta PARTITIONED BY (p) "
              "TBLPROPERTIES (delta.autoOptimize.autoCompact = true)")
    spark.conf.set("spark.silt.autoCompact.minNumFiles", "3")
    try:
        spark.sql("SELECT id, 1 AS p FROM range(0, 20, 1, 2)").write.format("delta").mode("append").save(path)
        for _ in range(2):
            spark.sql("SELECT id, 0 AS p FROM range(0, 10, 1, 1)").write.format("delta").mode("append").save(path)
        assert files(spark, path) == 4                          # p=0: 2 files, p=1: 2 files: none has 3
        spark.sql("SELECT id, 0 AS p FROM range(10, 20, 1, 1)").write.format("delta").mode("append").save(path)
        assert files(spark, path) == 3                          # p=0 compacted, p=1 left alone
        last, before = history(spark, path)[-1], history(spark, path)[-2]
        assert before.operation == "WRITE"                      # the user's commit, as it was
        assert last.operation == "OPTIMIZE" and last.operationParameters["auto"] == "true"
        assert json.loads(last.operationParameters["predicate"]) == ["`p` <=> '0'"]
        assert last.operationMetrics["numRemovedFiles"] == "3" and last.operationMetrics["numAddedFiles"] == "1"
        # the session setting wins over the table's property
        spark.conf.set("spark.databricks.delta.autoCompact.enabled", "false")
        for _ in range(3):
            spark.sql("SELECT id, 1 AS p FROM range(20, 30, 1, 1)").write.format("delta").mode("append").save(path)
        assert files(spark, path) == 6
    finally:
        spark.conf.unset("spark.silt.autoCompact.minNumFiles")
        spark.conf.unset("spark.databricks.delta.autoCompact.enabled")
    rows = sorted((r.id, r.p) for r in spark.read.format("delta").load(path).collect())
    assert rows == sorted([(i, 1) for i in range(20)] + [(i, 0) for i in range(10)] * 2 + [(i, 0) for i in range(10, 20)]
                          + [(i, 1) for i in range(20, 30)] * 3)


@pytest.mark.full  # second tier: a stream and DML (make test keeps the partitioned and concurrent cases)
def test_dml_and_streams_trigger_it_too(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING delta TBLPROPERTIES (delta.autoOptimize.autoCompact = true)")
    spark.conf.set("spark.silt.autoCompact.minNumFiles", "4")
    try:
        spark.sql("SELECT id FROM range(0, 30, 1, 3)").write.format("delta").mode("append").save(path)
        assert files(spark, path) == 3
        spark.sql(f"UPDATE delta.`{path}` SET id = id + 100 WHERE id = 5")  # rewrites one file: 3 + 1 - 1
        assert files(spark, path) == 3
        spark.sql(f"INSERT INTO delta.`{path}` VALUES (1000)")                 # the fourth small file
        assert files(spark, path) == 1
        source = str(tmp_path / "source")
        for i in range(6):
            spark.range(i * 10, i * 10 + 10).write.format("delta").mode("append").save(source)
        q = (spark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(source).writeStream
             .format("delta").option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start(path))
        q.awaitTermination()
        assert files(spark, path) <= 4                                          # six batches, compacted on the way
    finally:
        spark.conf.unset("spark.silt.autoCompact.minNumFiles")
    assert spark.read.format("delta").load(path).count() == 30 + 1 + 60


def test_a_compaction_that_loses_to_a_concurrent_commit_gives_up_and_the_write_stands(spark, tmp_path):
    """The compaction is held at its commit (CommitPause, armed for OPTIMIZE only) while another
    writer deletes rows of the files it read; it then conflicts, is given up, and the user's append
    that triggered it has committed and returned normally."""
    import threading
    path = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING delta TBLPROPERTIES (delta.autoOptimize.autoCompact = true)")
    spark.conf.set("spark.silt.autoCompact.minNumFiles", "3")
    pause = spark._jvm.io.silt.txn.CommitPause
    try:
        spark.sql("SELECT id FROM range(0, 20, 1, 2)").write.format("delta").mode("append").save(path)
        pause.armFor(path, "OPTIMIZE")
        outcome = {}

        def append():
            try:
                spark.sql("SELECT id FROM range(20, 30, 1, 1)").write.format("delta").mode("append").save(path)
                outcome["error"] = None
            except Exception as e:  # noqa: BLE001 - the test inspects it
                outcome["error"] = e

        thread = threading.Thread(target=append)
        thread.start()
        try:
            assert pause.awaitPaused(path, 120), "the auto compaction never reached its commit"
            spark.sql(f"DELETE FROM delta.`{path}` WHERE id < 10")   # removes a file the compaction read
        finally:
            pause.release(path)
            thread.join(300)
        assert not thread.is_alive() and outcome["error"] is None
    finally:
        spark.conf.unset("spark.silt.autoCompact.minNumFiles")
    ops = [(r.operation, r.operationParameters, r.operationMetrics) for r in history(spark, path)]
    assert [o[0] for o in ops] == ["CREATE TABLE", "WRITE", "WRITE", "DELETE"], ops  # no OPTIMIZE committed
    assert sorted(r.id for r in spark.read.format("delta").load(path).collect()) == list(range(10, 30))
