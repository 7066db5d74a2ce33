"""A streaming pipeline moved from Delta Lake to Silt: a stream the reference Delta Lake ran (its
source and sink on a table Silt wrote, its checkpoint) goes on under Silt from the same checkpoint.
Silt reads Delta Lake's offsets as Delta does: a batch Delta Lake planned and did not mark done is
run again by Silt over the same files, and what follows is read once."""
import json
import os

import pytest

from test_interop import run_reference

pytestmark = pytest.mark.full  # second tier: make test-full


def ids(spark, path):
    return sorted(r.id for r in spark.read.format("silt").load(path).collect())


def commits_with_txn(path):
    """{batch id: ids the sink's commit of that batch added}, from the target's log."""
    import pyarrow.parquet as pq
    out = {}
    log = os.path.join(path, "_delta_log")
    for f in sorted(os.listdir(log)):
        if not f.endswith(".json"):
            continue
        actions = [json.loads(line) for line in open(os.path.join(log, f))]
        txn = [a["txn"] for a in actions if "txn" in a]
        if txn:
            files = [a["add"]["path"] for a in actions if "add" in a]
            out[txn[0]["version"]] = sorted(i for p in files for i in pq.read_table(os.path.join(path, p))["id"].to_pylist())
    return out


def test_a_stream_started_by_delta_lake_goes_on_under_silt(spark, tmp_path):
    source, target, cp = str(tmp_path / "src"), str(tmp_path / "dst"), str(tmp_path / "cp")
    for start in (0, 10):  # two commits of two files: the stream's initial snapshot
        spark.range(start, start + 10, 1, 2).write.format("silt").mode("append").save(source)
    stream = {"op": "stream", "source": source, "target": target, "checkpoint": cp}
    results = run_reference([stream, {"op": "sql", "statements": [
        f"INSERT INTO delta.`{source}` SELECT id FROM range(20, 30, 1, 3)"]}, stream])
    assert all(r["ok"] for r in results), [r.get("error") for r in results]
    assert ids(spark, target) == list(range(30))
    by_batch = commits_with_txn(target)
    assert len(by_batch) == 7  # one file a batch: 4 of the snapshot, 3 of the insert
    offsets = os.path.join(cp, "offsets")
    last = json.loads(open(os.path.join(offsets, "6")).read().splitlines()[-1])
    assert "reservoirVersion" in last  # Delta Lake's own offsets

    # the query "died" before marking batch 6 done: Silt runs it again from Delta Lake's offsets
    for name in ("6", ".6.crc"):
        if os.path.exists(os.path.join(cp, "commits", name)):
            os.remove(os.path.join(cp, "commits", name))
    seen = {}

    def record(df, batch_id):
        seen[batch_id] = sorted(r.id for r in df.collect())

    spark.range(30, 35, 1, 1).write.format("silt").mode("append").save(source)
    query = (spark.readStream.format("silt").load(source).writeStream.foreachBatch(record)
             .option("checkpointLocation", cp).trigger(availableNow=True).start())
    query.awaitTermination()
    assert seen[6] == by_batch[6]  # the same file as Delta Lake's batch 6
    assert sorted(i for b, rows in seen.items() if b > 6 for i in rows) == list(range(30, 35))
