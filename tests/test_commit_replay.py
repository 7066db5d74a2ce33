"""Tables whose commits since their last checkpoint add more files than
`spark.silt.snapshot.maxDriverFiles` (a log written with checkpoints off, or by an engine that writes
none) are opened from those commits' other actions only, and scanned from a Spark job's replay of
their files: the rows, counts and transactions the file list gives, the file list never read."""
import json
import shutil

import pytest

from test_checkpoint_replay import checkpoint_rows, state_loaded
from test_checkpoint_scan import QUERIES, rows

LIMIT = "spark.silt.snapshot.maxDriverFiles"


def build(spark, path):
    """A partitioned table with deletion vectors, a transaction and tombstones, and no checkpoint (version 7)."""
    spark.sql(f"""CREATE TABLE silt.`{path}` (id BIGINT, k INT, s STRING) USING silt PARTITIONED BY (k)
                  TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '1000')""")
    for i in range(3):
        spark.range(i * 20, i * 20 + 20, 1, 2).selectExpr("id", "CAST(id % 3 AS INT) AS k", "CAST(id AS STRING) AS s") \
            .write.format("silt").mode("append").save(path)
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id % 5 = 0")
    spark.range(100, 110).selectExpr("id", "1 AS k", "'t' AS s").write.format("silt").mode("append") \
        .option("txnAppId", "app").option("txnVersion", 3).save(path)
    spark.sql(f"UPDATE silt.`{path}` SET s = 'u' WHERE id < 10")
    spark.sql(f"OPTIMIZE '{path}' WHERE k = 2")


def replayed_by_spark(spark, path):
    """Whether Silt's cached snapshot of `path` scans a Spark job's replay (not its checkpoint's row groups nor a file list)."""
    snapshot = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, path).latest()
    return snapshot.fileListOffDriver() and not snapshot.scansCheckpoint()


def detail(spark, path):
    d = spark.sql(f"DESCRIBE DETAIL '{path}'").first()
    return d["numFiles"], d["sizeInBytes"]


def test_a_log_of_commits_alone_is_scanned_from_a_spark_replay_without_its_file_list(spark, tmp_path, setting):
    src, large = str(tmp_path / "src"), str(tmp_path / "large")
    build(spark, src)
    expected = {q: rows(spark, src, q) for q in QUERIES}
    expected_detail = detail(spark, src)
    shutil.copytree(src, large)
    setting(LIMIT, "0")  # a log opened under another limit is a TableLog of its own: opened afresh
    assert spark.read.format("silt").load(large).columns == ["id", "k", "s"]
    for q in QUERIES:
        assert rows(spark, large, q) == expected[q], q
    assert detail(spark, large) == expected_detail
    assert replayed_by_spark(spark, large)
    # a join whose other side prunes partitions (dynamic partition pruning: a filter holding a subquery)
    dim = spark.createDataFrame([(1, "x"), (2, "y")], "k INT, tag STRING").where("tag = 'x'")
    joined = spark.read.format("silt").load(large).join(dim, "k").select("id", "k", "s")
    assert sorted(tuple(r) for r in joined.collect()) == expected["k = 1"]
    # the transaction is read with the commits' other actions: the same batch again is skipped
    spark.range(100, 110).selectExpr("id", "1 AS k", "'t' AS s").write.format("silt").mode("append") \
        .option("txnAppId", "app").option("txnVersion", 3).save(large)
    assert rows(spark, large, "true") == expected["true"]
    assert not state_loaded(spark, large)

    # a write onto it, read back from the replay of the commits with the new one
    spark.sql(f"INSERT INTO silt.`{large}` VALUES (500, 2, 'n')")
    assert rows(spark, large, "k = 2 AND id > 400") == [(500, 2, "n")]
    assert not state_loaded(spark, large)

    # its checkpoint: from the same replay, the driver still holding no file list
    spark.sql(f"CHECKPOINT '{large}'")
    assert not state_loaded(spark, large)
    version = spark.sql(f"DESCRIBE HISTORY '{large}'").first()["version"]
    [cp] = checkpoint_rows(large, version)
    assert len([r for r in cp if "add" in r]) == detail(spark, large)[0]
    assert [r["txn"]["appId"] for r in cp if "txn" in r] == ["app"]


@pytest.mark.full  # second tier: make test was past 15 minutes (20 s)
def test_after_a_checkpoint_a_commit_of_more_files_than_the_driver_holds_is_replayed_by_spark(spark, tmp_path, setting):
    """A checkpoint, then a commit removing 12,000 files (an engine's OPTIMIZE of a large table, here
    tombstones of files it never had): more than the driver replays after a checkpoint whatever its limit."""
    src, large = str(tmp_path / "src"), str(tmp_path / "large")
    build(spark, src)
    spark.sql(f"CHECKPOINT '{src}'")
    version = spark.sql(f"DESCRIBE HISTORY '{src}'").first()["version"]
    log = tmp_path / "src" / "_delta_log"
    removes = [{"remove": {"path": f"k=1/part-{i:05d}-{'0' * 300}.snappy.parquet", "deletionTimestamp": 1,
                           "dataChange": True, "partitionValues": {"k": "1"}, "size": 1}} for i in range(12000)]
    info = {"commitInfo": {"timestamp": 1, "operation": "OPTIMIZE", "readVersion": version}}
    (log / f"{version + 1:020d}.json").write_text("\n".join(json.dumps(a) for a in [info] + removes) + "\n")
    expected = {q: rows(spark, src, q) for q in QUERIES}
    expected_files = detail(spark, src)[0]
    shutil.copytree(src, large)
    setting(LIMIT, "0")
    for q in QUERIES:
        assert rows(spark, large, q) == expected[q], q
    assert detail(spark, large)[0] == expected_files
    assert replayed_by_spark(spark, large)
    spark.conf.unset(LIMIT)
    fresh = str(tmp_path / "fresh")
    shutil.copytree(src, fresh)
    assert rows(spark, fresh, "true") == expected["true"]
    assert state_loaded(spark, fresh)  # a table the driver holds reads its file list as before


def test_a_replayed_file_outside_the_table_is_refused_as_the_drivers_replay_refuses_it(spark, tmp_path, setting):
    p = tmp_path / "t"
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    add = {"add": {"path": "../outside.parquet", "partitionValues": {}, "size": 1, "modificationTime": 1,
                   "dataChange": True}}
    (p / "_delta_log" / f"{2:020d}.json").write_text(json.dumps(add) + "\n")
    for limit, name in ((None, "driver"), ("0", "replayed")):
        if limit:
            setting(LIMIT, limit)
        fresh = tmp_path / name
        shutil.copytree(p, fresh)
        with pytest.raises(Exception, match="outside the table directory"):
            spark.read.format("silt").load(str(fresh)).collect()
    assert replayed_by_spark(spark, str(fresh))
