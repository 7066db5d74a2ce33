"""Tables on S3, through S3A, against a real S3 server on 127.0.0.1 (s3proxy, tests/s3server.py).

Commits are conditional PUTs (If-None-Match: *): of writers racing for a version, in any number
of processes, exactly one wins and no commit is ever replaced.
"""
import json
import subprocess
import sys
from collections import Counter

import pytest
from pyspark.sql import functions as F

import silt
from conftest import REPO_ROOT, python_env, s3_supported
from s3server import BUCKET, S3Server

WORKER = REPO_ROOT / "tests" / "s3_worker.py"


@pytest.fixture(scope="module")
def s3(spark, tmp_path_factory):
    if not s3_supported():
        pytest.skip(f"this pyspark's Hadoop ({silt.session.hadoop_version()}) cannot create S3 objects "
                    "conditionally, so Silt does not commit to S3 with it (Spark 4.1 and later can)")
    server = S3Server.start(tmp_path_factory.mktemp("s3"))
    conf = server.hadoop_conf()
    for k, v in conf.items():
        spark.conf.set(k, v)
    # a second bucket whose S3A client may not create conditionally, as an old hadoop-aws could not
    (server.root / "data" / "silt-unsafe").mkdir()
    spark.conf.set("fs.s3a.bucket.silt-unsafe.create.conditional.enabled", "false")
    yield server
    for k in list(conf) + ["fs.s3a.bucket.silt-unsafe.create.conditional.enabled"]:
        spark.conf.unset(k)
    server.stop()


def rows(spark, path, **options):
    reader = spark.read.format("silt")
    for k, v in options.items():
        reader = reader.option(k, v)
    return sorted(tuple(r) for r in reader.load(path).collect())


def commit_versions(server, name):
    log = server.local_path(name, "_delta_log")
    return sorted(int(p.name[:20]) for p in log.iterdir() if p.name.endswith(".json") and p.name[:20].isdigit())


def test_the_main_user_paths_on_s3(spark, s3):
    p = s3.url("main")
    data = spark.range(0, 2000).select("id", (F.col("id") % 4).alias("part"), (F.col("id") * 7 % 1000).alias("x"))
    data.write.format("silt").partitionBy("part").option("delta.enableDeletionVectors", "true").save(p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 10 = 1")
    spark.sql(f"UPDATE silt.`{p}` SET x = -1 WHERE id % 10 = 2")
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT id, 0L AS part, -2L AS x FROM range(1990, 2010)) s "
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET x = s.x WHEN NOT MATCHED THEN INSERT *")
    expected = {}
    for i in range(2000):
        if i % 10 != 1:
            expected[i] = (i, i % 4, -1 if i % 10 == 2 else i * 7 % 1000)
    for i in range(1990, 2010):  # matched rows updated; deleted and new ids inserted
        expected[i] = (i, expected[i][1] if i in expected else 0, -2)
    assert rows(spark, p) == sorted(expected.values())
    assert any(f.name.startswith("deletion_vector_") for f in s3.local_path("main").iterdir())
    spark.sql(f"OPTIMIZE silt.`{p}` ZORDER BY (x)").collect()
    spark.sql(f"CHECKPOINT silt.`{p}`").collect()
    assert (s3.local_path("main", "_delta_log", "_last_checkpoint")).is_file()
    assert rows(spark, p) == sorted(expected.values())
    # time travel to the first version, and the history of every operation
    assert len(rows(spark, p, versionAsOf=0)) == 2000
    ops = [r["operation"] for r in spark.sql(f"DESCRIBE HISTORY silt.`{p}`").collect()]
    assert ops == ["OPTIMIZE", "MERGE", "UPDATE", "DELETE", "WRITE"]
    # VACUUM lists the table by prefix and deletes what no version needs any more
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        deleted = spark.sql(f"VACUUM silt.`{p}` RETAIN 0 HOURS").collect()
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    assert deleted
    assert rows(spark, p) == sorted(expected.values())
    # every commit file is on the server, and no temporary file was left in the log
    assert commit_versions(s3, "main") == list(range(5))  # no VACUUM START/END on S3, as Delta Lake
    assert not [f for f in s3.local_path("main", "_delta_log").iterdir() if f.name.startswith(".")]
    # the log's tail is listed from a version on (S3's start-after listing)
    listing = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, p).listing(3)
    assert [listing.commits().apply(i).version() for i in range(listing.commits().size())] == [3, 4]
    assert listing.checkpoints().size() == 1 and listing.startsAtFrom()  # CHECKPOINT of version 4


@pytest.mark.slow
def test_writers_in_four_processes_racing_for_the_same_versions(spark, s3, tmp_path):
    p = s3.url("race")
    spark.createDataFrame([(-1, -1)], "writer int, n int").write.format("silt").save(p)
    env = python_env()
    conf = json.dumps(s3.hadoop_conf())
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    workers = [subprocess.Popen([sys.executable, str(WORKER), "append", p, str(w), "10", conf, str(barrier), "4"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for w in range(4)]
    outputs = [w.communicate(timeout=600) for w in workers]
    for w, (out, err) in zip(workers, outputs):
        assert w.returncode == 0, err[-3000:]
    got = Counter(rows(spark, p))
    assert got == Counter([(-1, -1)] + [(w, n) for w in range(4) for n in range(10)])  # every row exactly once
    assert commit_versions(s3, "race") == list(range(41))  # contiguous, one commit per append
    # no commit was replaced: each names the one data file it added, and these are all the table's files
    added = {}
    for v in range(41):
        lines = [json.loads(x) for x in s3.local_path("race", "_delta_log", f"{v:020d}.json").read_text().splitlines()]
        added[v] = [a["add"]["path"] for a in lines if "add" in a]
    assert all(len(added[v]) == 1 for v in range(1, 41))
    added = [f for files in added.values() for f in files]
    assert len(added) == len(set(added))
    assert sorted(added) == sorted(r["path"] for r in spark.sql(f"DESCRIBE FILES silt.`{p}`").collect())


def test_without_conditional_create_commits_are_refused_unless_single_driver(spark, s3):
    p = "s3a://silt-unsafe/t"
    with pytest.raises(silt.AtomicCommitUnavailableException, match="spark.silt.logStore.s3a.impl = single-driver"):
        silt.errors.reraise(lambda: spark.range(3).write.format("silt").save(p))
    assert not (s3.root / "data" / "silt-unsafe" / "t" / "_delta_log" / f"{0:020d}.json").exists()
    spark.conf.set("spark.silt.logStore.s3a.impl", "single-driver")
    try:
        spark.range(3).write.format("silt").save(p)
        spark.range(3, 5).write.format("silt").mode("append").save(p)
        assert [r[0] for r in rows(spark, p)] == [0, 1, 2, 3, 4]
    finally:
        spark.conf.unset("spark.silt.logStore.s3a.impl")
    # a store name that does not exist is refused, naming the setting
    spark.conf.set("spark.silt.logStore.s3a.impl", "no-such-store")
    try:
        with pytest.raises(silt.UnsupportedOptionException, match="spark.silt.logStore.s3a.impl"):
            silt.errors.reraise(lambda: spark.range(1).write.format("silt").mode("append").save(p))
    finally:
        spark.conf.unset("spark.silt.logStore.s3a.impl")


def test_delta_rs_reads_the_s3_table(spark, s3):
    deltalake = pytest.importorskip("deltalake")
    p = s3.url("interop")
    spark.range(0, 100).select("id", (F.col("id") % 3).alias("k")).write.format("silt").partitionBy("k").save(p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 10")
    table = deltalake.DeltaTable(f"s3://{BUCKET}/interop", storage_options=s3.storage_options())
    got = sorted(r["id"] for r in table.to_pyarrow_table().to_pylist())
    assert got == list(range(10, 100))
    assert table.version() == 1


@pytest.mark.full  # second tier: make test's S3 slice is the main user paths above
def test_v2_checkpoints_with_sidecars_and_log_cleanup_on_s3(spark, s3):
    p = s3.url("v2")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt TBLPROPERTIES ('delta.checkpointPolicy' = 'v2', "
              "'delta.checkpointInterval' = '3', 'delta.logRetentionDuration' = 'interval 0 hours', "
              "'delta.deletedFileRetentionDuration' = 'interval 0 hours')")
    spark.conf.set("spark.silt.checkpoint.v2.filesPerSidecar", "2")
    try:
        for i in range(8):
            spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(p)
    finally:
        spark.conf.unset("spark.silt.checkpoint.v2.filesPerSidecar")
    assert [r[0] for r in rows(spark, p)] == list(range(80))
    sidecars = list(s3.local_path("v2", "_delta_log", "_sidecars").iterdir())
    assert len(sidecars) >= 4  # the files of the last checkpoint (8 of them), two per sidecar
    assert commit_versions(s3, "v2")[0] > 0  # commits before a checkpoint were cleaned up
    # the oldest version left (a checkpoint) is still readable by time travel (past the 0-hour retention: asked)
    spark.conf.set("spark.silt.timeTravel.retentionCheck.enabled", "false")
    try:
        assert len(rows(spark, p, versionAsOf=commit_versions(s3, "v2")[0])) > 0
    finally:
        spark.conf.unset("spark.silt.timeTravel.retentionCheck.enabled")


@pytest.mark.full
@pytest.mark.parametrize("trial", range(2))
def test_a_writer_killed_in_the_middle_of_its_commits_leaves_the_table_readable(spark, s3, tmp_path, trial):
    import random
    import signal
    import time

    p = s3.url(f"killed-{trial}")
    spark.createDataFrame([(-1, -1)], "writer int, n int").write.format("silt").save(p)
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    worker = subprocess.Popen([sys.executable, str(WORKER), "append-acked", p, "0", "1000", json.dumps(s3.hadoop_conf()),
                               str(barrier), "1"], env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    acked = []
    line = worker.stdout.readline()
    while not line.startswith("committed"):  # the first commit: then kill it at some moment of a later one
        assert line, "the writer ended before its first commit"
        line = worker.stdout.readline()
    acked.append(int(line.split()[1]))
    deadline = time.monotonic() + random.Random(trial).uniform(0.2, 1.5)
    while time.monotonic() < deadline:
        time.sleep(0.01)
    worker.send_signal(signal.SIGKILL)
    out, _ = worker.communicate()
    acked += [int(x.split()[1]) for x in out.splitlines() if x.startswith("committed")]
    got = [r for r in rows(spark, p) if r != (-1, -1)]
    ns = [n for _, n in got]
    # every acknowledged commit is there, each row once, and nothing past the one in flight
    assert ns == list(range(len(ns))) and len(ns) in (len(acked), len(acked) + 1)
    assert commit_versions(s3, f"killed-{trial}") == list(range(len(ns) + 1))
    # and the table takes the next commit
    spark.createDataFrame([(1, 0)], "writer int, n int").write.format("silt").mode("append").save(p)
    assert (1, 0) in rows(spark, p)
