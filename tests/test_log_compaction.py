"""Log compaction files (`<x>.<y>.compacted.json`): written every `spark.silt.log.compaction.interval`
commits as Delta Kernel writes them, replayed in place of their commits by Silt and by the other
engines, and deleted by log cleanup with the commits they cover."""
import json
import os
import shutil
import time
from pathlib import Path

import pytest

import silt
from test_checkpoints import log_files, peers_ids
from test_writes import raises_silt

INTERVAL = "spark.silt.log.compaction.interval"
USE_FOR_READS = "spark.databricks.delta.deltaLog.minorCompaction.useForReads"


def compactions(path):
    return [n for n in log_files(path) if n.endswith(".compacted.json")]


def actions(path, name):
    with open(Path(path) / "_delta_log" / name) as f:
        return [json.loads(line) for line in f if line.strip()]


def replayed(path, start, end):
    """What commits `start` to `end` leave, reconciled by hand: each file's last add or remove, the
    last protocol and metadata, each transaction's last version."""
    files, other = {}, {}
    for v in range(start, end + 1):
        for a in actions(path, f"{v:020d}.json"):
            kind, body = next(iter(a.items()))
            if kind in ("add", "remove"):
                dv = (body.get("deletionVector") or {})
                files[(body["path"], dv.get("storageType", "") + dv.get("pathOrInlineDv", "") + str(dv.get("offset", "")))] = (kind, body)
            elif kind in ("protocol", "metaData"):
                other[kind] = body
            elif kind == "txn":
                other[("txn", body["appId"])] = body["version"]
    return files, other


def compaction_without_commit_2(spark, path):
    """A table of four commits (ids 10 to 39 in the last three) and a compaction of commits 1 and 2
    holding only commit 1's adds: a reader using it loses commit 2's rows."""
    spark.range(0).write.format("silt").save(path)
    for i in range(1, 4):
        spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(path)
    only_first = [a for a in actions(path, f"{1:020d}.json") if "add" in a]
    (Path(path) / "_delta_log" / f"{1:020d}.{2:020d}.compacted.json").write_text("".join(json.dumps(a) + "\n" for a in only_first))


def ids(spark, path):
    return sorted(r["id"] for r in spark.read.format("silt").load(path).collect())


def fresh_copy(path, tmp_path, name):
    """A copy at a path this JVM never read: its rows come from its log files, not a cached snapshot."""
    copy = str(tmp_path / name)
    shutil.copytree(path, copy)
    return copy


def build(spark, path):
    """Ten commits of appends, a DELETE, an UPDATE and an idempotent write (adds, removes, deletion vectors, a txn)."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, k INT) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    for i in range(5):
        spark.range(i * 10, i * 10 + 10).selectExpr("id", "CAST(id % 3 AS INT) AS k").write.format("silt").mode("append").save(path)
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id % 7 = 0")
    spark.sql(f"UPDATE silt.`{path}` SET k = 9 WHERE id < 15")
    spark.range(100, 105).selectExpr("id", "1 AS k").write.format("silt").mode("append") \
        .option("txnAppId", "app").option("txnVersion", 1).save(path)
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id = 101")


@pytest.mark.smoke
def test_every_interval_of_commits_gets_its_reconciled_compaction(spark, tmp_path, setting):
    setting(INTERVAL, "3")
    p = str(tmp_path / "t")
    build(spark, p)  # versions 0 to 9
    assert compactions(p) == [f"{0:020d}.{2:020d}.compacted.json", f"{3:020d}.{5:020d}.compacted.json",
                              f"{6:020d}.{8:020d}.compacted.json"]
    for name in compactions(p):
        start, end = int(name[:20]), int(name[21:41])
        got = actions(p, name)
        assert not [a for a in got if "commitInfo" in a or "cdc" in a]
        files, other = replayed(p, start, end)
        kinds = sorted((k, b["path"]) for k, b in files.values())
        assert sorted((next(iter(a)), a[next(iter(a))]["path"]) for a in got if {"add", "remove"} & a.keys()) == kinds
        assert {("txn", a["txn"]["appId"]): a["txn"]["version"] for a in got if "txn" in a} == \
            {k: v for k, v in other.items() if isinstance(k, tuple)}
        assert [a["metaData"] for a in got if "metaData" in a] == ([other["metaData"]] if "metaData" in other else [])
    expected = sorted(i for i in list(range(50)) + list(range(100, 105)) if i % 7 and i != 101)
    assert ids(spark, p) == expected
    assert ids(spark, fresh_copy(p, tmp_path, "copy")) == expected
    assert peers_ids(fresh_copy(p, tmp_path, "peers")) == (expected, expected)


def test_a_compaction_replaces_its_commits_in_a_replay(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    compaction_without_commit_2(spark, p)
    assert ids(spark, fresh_copy(p, tmp_path, "a")) == list(range(10, 20)) + list(range(30, 40))
    setting(USE_FOR_READS, "false")
    assert ids(spark, fresh_copy(p, tmp_path, "b")) == list(range(10, 40))


@pytest.mark.full  # second tier: several dozen commits
def test_log_cleanup_deletes_the_compactions_a_kept_checkpoint_covers(spark, tmp_path, setting):
    setting(INTERVAL, "3")
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt TBLPROPERTIES "
              "('delta.logRetentionDuration' = 'interval 1 hours', 'delta.deletedFileRetentionDuration' = "
              "'interval 1 hours', 'delta.checkpointInterval' = '5')")
    for i in range(1, 7):
        spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(p)
    assert compactions(p) == [f"{0:020d}.{2:020d}.compacted.json", f"{3:020d}.{5:020d}.compacted.json"]
    old = time.time() - 3 * 3600
    for name in log_files(p):
        if name[:20].isdigit():
            os.utime(Path(p) / "_delta_log" / name, (old, old))
    for i in range(7, 11):
        spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(p)  # commit 10 checkpoints and cleans up
    # kept: the checkpoint of version 5 and what follows it; the compaction starting at 3 could replace nothing any more
    assert compactions(p) == [f"{6:020d}.{8:020d}.compacted.json"]
    assert "00000000000000000005.checkpoint.parquet" in log_files(p)
    assert ids(spark, fresh_copy(p, tmp_path, "copy")) == list(range(10, 110))


def test_an_interval_of_one_commit_is_refused(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    setting(INTERVAL, "1")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(3).write.format("silt").mode("append").save(p))
    assert INTERVAL in msg and "0 (off) or an integer >= 2" in msg
    assert compactions(p) == [] and len([n for n in log_files(p) if n.endswith(".json")]) == 1


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_replays_silts_compactions_and_compactions_as_silt_does(spark, tmp_path, setting):
    """Delta Lake reads a table whose compactions Silt wrote as Silt does, and, given a compaction
    that differs from its commits, reads it in their place as Silt does."""
    from test_interop import result_on_reference
    setting(INTERVAL, "3")
    p = str(tmp_path / "t")
    build(spark, p)
    spark.conf.unset(INTERVAL)
    q = str(tmp_path / "q")
    compaction_without_commit_2(spark, q)
    program = ("result = [sorted(r.id for r in spark.read.format('delta').load(t).collect()) for t in (p, q)]")
    assert result_on_reference(program, p=p, q=q) == [ids(spark, p), ids(spark, fresh_copy(q, tmp_path, "q2"))]
