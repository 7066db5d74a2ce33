"""Streaming writes: `writeStream.format("silt")`, one commit per micro-batch, exactly once across
restarts (a batch committed before the query died is skipped when it runs again)."""
import glob
import json
import os

import pytest

import silt
from test_writes import raises_silt

SCHEMA = "id BIGINT, k STRING"


def add_input(folder, name, ids):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{name}.json"), "w") as f:
        for i in ids:
            f.write(json.dumps({"id": i, "k": f"k{i % 3}"}) + "\n")


def run_available_now(spark, source, target, checkpoint, **writer):
    q = spark.readStream.schema(SCHEMA).json(source).writeStream.format("silt") \
        .option("checkpointLocation", checkpoint).trigger(availableNow=True)
    for k, v in writer.items():
        q = getattr(q, k)(*v) if isinstance(v, tuple) else q.option(k, v)
    query = q.start(target)
    query.awaitTermination()
    return query


def log_commits(path):
    out = []
    for f in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        actions = [json.loads(line) for line in open(f)]
        out.append(actions)
    return out


def test_each_micro_batch_is_one_commit_with_its_query_and_batch_ids(spark, tmp_path):
    source, target, cp = str(tmp_path / "in"), str(tmp_path / "t"), str(tmp_path / "cp")
    add_input(source, "a", range(0, 10))
    query = run_available_now(spark, source, target, cp, partitionBy=("k",))
    add_input(source, "b", range(10, 15))
    run_available_now(spark, source, target, cp, partitionBy=("k",))
    rows = spark.read.format("silt").load(target)
    assert sorted(r.id for r in rows.collect()) == list(range(15))
    assert spark.sql(f"DESCRIBE DETAIL '{target}'").first()["partitionColumns"] == ["k"]
    txns = [a["txn"] for c in log_commits(target) for a in c if "txn" in a]
    # the restarted query keeps its id (from the checkpoint): batch ids 0 and 1 under one appId
    assert [t["version"] for t in txns] == [0, 1] and {t["appId"] for t in txns} == {str(query.id)}


def test_a_batch_committed_before_a_crash_is_not_written_twice(spark, tmp_path):
    source, target, cp = str(tmp_path / "in"), str(tmp_path / "t"), str(tmp_path / "cp")
    add_input(source, "a", range(0, 10))
    run_available_now(spark, source, target, cp)
    add_input(source, "b", range(10, 20))
    run_available_now(spark, source, target, cp)
    versions = len(log_commits(target))
    # the query "died" after the table commit of batch 1 and before marking it done in its checkpoint
    for f in ("1", ".1.crc"):
        if os.path.exists(os.path.join(cp, "commits", f)):
            os.remove(os.path.join(cp, "commits", f))
    run_available_now(spark, source, target, cp)
    assert sorted(r.id for r in spark.read.format("silt").load(target).collect()) == list(range(20))
    assert len(log_commits(target)) == versions  # batch 1 ran again and was skipped: no new commit
    # new data after the restart is written once
    add_input(source, "c", range(20, 25))
    run_available_now(spark, source, target, cp)
    assert sorted(r.id for r in spark.read.format("silt").load(target).collect()) == list(range(25))


def test_complete_mode_replaces_the_rows_with_each_batch(spark, tmp_path):
    source, target, cp = str(tmp_path / "in"), str(tmp_path / "t"), str(tmp_path / "cp")
    add_input(source, "a", range(0, 9))

    def run():
        q = (spark.readStream.schema(SCHEMA).json(source).groupBy("k").count().writeStream.format("silt")
             .outputMode("complete").option("checkpointLocation", cp).trigger(availableNow=True).start(target))
        q.awaitTermination()

    run()
    add_input(source, "b", range(9, 12))
    run()
    got = sorted((r.k, r["count"]) for r in spark.read.format("silt").load(target).collect())
    assert got == [("k0", 4), ("k1", 4), ("k2", 4)]


def test_what_the_sink_cannot_honour_is_refused(spark, tmp_path):
    source, target = str(tmp_path / "in"), str(tmp_path / "t")
    add_input(source, "a", range(3))
    stream = spark.readStream.schema(SCHEMA).json(source)
    with pytest.raises(Exception, match="output mode .*[Uu]pdate"):
        silt.errors.reraise(lambda: stream.groupBy("k").count().writeStream.format("silt").outputMode("update")
                            .option("checkpointLocation", str(tmp_path / "cp1")).start(target).awaitTermination())
    msg = raises_silt(silt.UnsupportedOptionException, lambda: stream.writeStream.format("silt")
                      .option("checkpointLocation", str(tmp_path / "cp2")).option("txnAppId", "x").option("txnVersion", "1")
                      .start(target).awaitTermination())
    assert "txnAppId" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: stream.writeStream.format("silt")
                      .option("checkpointLocation", str(tmp_path / "cp3")).option("nope", "1").start(target)
                      .awaitTermination())
    assert "nope" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: stream.writeStream.format("silt").outputMode("append")
                      .option("checkpointLocation", str(tmp_path / "cp4")).option("replaceWhere", "k = 'k0'")
                      .start(target).awaitTermination())
    assert "replaceWhere" in msg
    # the session's idempotent-write settings would be replaced by the query's ids: refused, not ignored
    spark.conf.set("spark.silt.write.txnAppId", "app")
    spark.conf.set("spark.silt.write.txnVersion", "1")
    try:
        msg = raises_silt(silt.UnsupportedOptionException, lambda: stream.writeStream.format("silt")
                          .option("checkpointLocation", str(tmp_path / "cp5")).start(target).awaitTermination())
        assert "spark.silt.write.txnAppId" in msg
    finally:
        spark.conf.unset("spark.silt.write.txnAppId")
        spark.conf.unset("spark.silt.write.txnVersion")
    assert not os.path.exists(os.path.join(target, "_delta_log"))


def test_a_stream_into_a_catalog_table_with_to_table(spark, tmp_path):
    source, cp = str(tmp_path / "in"), str(tmp_path / "cp")
    add_input(source, "a", range(0, 6))
    spark.sql("DROP TABLE IF EXISTS streamed")
    spark.sql(f"CREATE TABLE streamed (id BIGINT, k STRING) USING silt LOCATION '{tmp_path / 't'}'")
    try:
        q = spark.readStream.schema(SCHEMA).json(source).writeStream.format("silt") \
            .option("checkpointLocation", cp).trigger(availableNow=True).toTable("streamed")
        q.awaitTermination()
        assert sorted(r.id for r in spark.table("streamed").collect()) == list(range(6))
        last = spark.sql("DESCRIBE HISTORY streamed").first()
        # as Delta Lake records a micro-batch
        assert last["operation"] == "STREAMING UPDATE"
        assert last["operationParameters"] == {"outputMode": "Append", "queryId": str(q.id), "epochId": "0"}
    finally:
        spark.sql("DROP TABLE IF EXISTS streamed")


def test_foreach_batch_writes_are_once_with_txn_options(spark, tmp_path):
    """A foreachBatch writer passes (its app id, the batch id) as txnAppId / txnVersion: a batch that
    runs again after a restart is skipped by the table."""
    source, target, cp = str(tmp_path / "in"), str(tmp_path / "t"), str(tmp_path / "cp")

    def write(df, batch_id):
        df.write.format("silt").mode("append").option("txnAppId", "events-loader") \
            .option("txnVersion", batch_id).save(target)

    def run():
        q = (spark.readStream.schema(SCHEMA).json(source).writeStream.foreachBatch(write)
             .option("checkpointLocation", cp).trigger(availableNow=True).start())
        q.awaitTermination()
    add_input(source, "a", range(0, 10))
    run()
    add_input(source, "b", range(10, 20))
    run()
    for f in ("1", ".1.crc"):  # batch 1 is run again
        if os.path.exists(os.path.join(cp, "commits", f)):
            os.remove(os.path.join(cp, "commits", f))
    run()
    assert sorted(r.id for r in spark.read.format("silt").load(target).collect()) == list(range(20))
