"""Streaming reads: `spark.readStream.format("silt")`: the initial snapshot, then each commit's new
files in order, a bounded number per micro-batch; commits that delete or rewrite rows stop the stream
unless told to skip them; a schema change stops it until a restart."""
import glob
import json
import os
import shutil

import pytest

from silt import (SchemaMismatchException, SourceRowsChangedException, SourceSchemaChangedException,
                  SourceTableReplacedException, UnsupportedOptionException, VersionNotFoundException)
from test_writes import raises_silt


def append(spark, path, ids, files=1, **options):
    w = spark.range(ids[0], ids[1], numPartitions=files).selectExpr("id", "cast(id % 3 as int) AS k") \
        .write.format("silt").mode("append")
    for k, v in options.items():
        w = w.option(k, v)
    w.save(path)


def ids(spark, path):
    return sorted(r.id for r in spark.read.format("silt").load(path).collect())


def pump(spark, source, target, cp, trigger=None, table=None, **options):
    """Runs the stream source -> target until it has read what is there (Trigger.AvailableNow); returns the query."""
    reader = spark.readStream.format("silt")
    for k, v in options.items():
        reader = reader.option(k, v)
    df = reader.table(table) if table else reader.load(source)
    query = (df.writeStream.format("silt").option("checkpointLocation", cp).option("mergeSchema", "true")
             .trigger(**(trigger or {"availableNow": True})).start(target))
    try:
        query.awaitTermination()
    finally:
        query.stop()
    return query


def batches(query):
    """The rows of each micro-batch that read data."""
    return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]]


@pytest.fixture
def paths(tmp_path):
    return str(tmp_path / "src"), str(tmp_path / "dst"), str(tmp_path / "cp")


def test_initial_snapshot_then_appends_across_optimize_and_delete(spark, paths):
    source, target, cp = paths
    append(spark, source, (0, 10), files=2)
    append(spark, source, (10, 20), files=2)
    pump(spark, source, target, cp)
    assert ids(spark, target) == list(range(20))

    append(spark, source, (20, 25))
    spark.sql(f"OPTIMIZE silt.`{source}`")  # dataChange = false: nothing to read
    append(spark, source, (25, 30))
    pump(spark, source, target, cp)
    assert ids(spark, target) == list(range(30))

    spark.sql(f"DELETE FROM silt.`{source}` WHERE id = 3")
    append(spark, source, (30, 35))
    message = raises_silt(SourceRowsChangedException, lambda: pump(spark, source, target, cp))
    assert "skipChangeCommits" in message and "DELETE" in message
    assert ids(spark, target) == list(range(30))  # the failed run wrote nothing

    # restarted with skipChangeCommits: the DELETE is skipped (its row stays downstream), the append read once
    pump(spark, source, target, cp, skipChangeCommits="true")
    assert ids(spark, target) == list(range(35))
    append(spark, source, (35, 40))
    pump(spark, source, target, cp, skipChangeCommits="true")
    assert ids(spark, target) == list(range(40))


def test_rate_limits_split_the_reading_into_micro_batches(spark, paths):
    source, target, cp = paths
    for start in range(0, 40, 10):
        append(spark, source, (start, start + 10), files=2)  # 8 files of 5 rows
    query = pump(spark, source, target, cp, maxFilesPerTrigger="3")
    assert batches(query) == [15, 15, 10]
    assert ids(spark, target) == list(range(40))

    append(spark, source, (40, 60), files=4)
    size = max(os.path.getsize(f) for f in glob.glob(os.path.join(source, "*.parquet")))
    query = pump(spark, source, target, cp, maxBytesPerTrigger=str(size))  # a soft limit: one file each
    assert batches(query) == [5, 5, 5, 5]
    assert ids(spark, target) == list(range(60))


def test_trigger_once_reads_everything_in_one_batch(spark, paths):
    source, target, cp = paths
    for start in range(0, 30, 10):
        append(spark, source, (start, start + 10), files=2)
    query = pump(spark, source, target, cp, trigger={"once": True}, maxFilesPerTrigger="1")
    assert batches(query) == [30]  # Spark gives Trigger.Once no read limit (as with Delta Lake)
    assert ids(spark, target) == list(range(30))


def test_starting_version_and_timestamp(spark, paths, tmp_path):
    source, target, cp = paths
    append(spark, source, (0, 10))   # v0
    append(spark, source, (10, 20))  # v1
    append(spark, source, (20, 30))  # v2
    pump(spark, source, target, cp, startingVersion="1")
    assert ids(spark, target) == list(range(10, 30))

    latest_target, latest_cp = str(tmp_path / "latest"), str(tmp_path / "latest_cp")
    append(spark, latest_target, (-1, 0))  # the target exists, so an empty run can be read
    pump(spark, source, latest_target, latest_cp, startingVersion="latest")
    assert ids(spark, latest_target) == [-1]
    append(spark, source, (30, 35))
    pump(spark, source, latest_target, latest_cp, startingVersion="latest")
    assert ids(spark, latest_target) == [-1] + list(range(30, 35))

    history = {r.version: r.timestamp for r in spark.sql(f"DESCRIBE HISTORY silt.`{source}`").collect()}
    ts_target, ts_cp = str(tmp_path / "ts"), str(tmp_path / "ts_cp")
    pump(spark, source, ts_target, ts_cp, startingTimestamp=str(history[2]))
    assert ids(spark, ts_target) == list(range(20, 35))

    assert "available versions are 0 to 3" in raises_silt(VersionNotFoundException, lambda: pump(
        spark, source, str(tmp_path / "x"), str(tmp_path / "x_cp"), startingVersion="9"))
    assert "after the latest commit" in raises_silt(VersionNotFoundException, lambda: pump(
        spark, source, str(tmp_path / "y"), str(tmp_path / "y_cp"), startingTimestamp="2999-01-01"))


def test_ignore_deletes_and_ignore_changes(spark, tmp_path):
    source = str(tmp_path / "src")
    spark.sql(f"CREATE TABLE silt.`{source}` (id BIGINT, k INT) USING silt PARTITIONED BY (k) "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")                   # v0
    append(spark, source, (0, 12))                                                       # v1
    spark.sql(f"DELETE FROM silt.`{source}` WHERE k = 0")  # v2: whole files removed, nothing added
    append(spark, source, (12, 18))                      # v3: a file per partition, two rows each

    def run(name, **options):
        target, cp = str(tmp_path / name), str(tmp_path / f"{name}_cp")
        pump(spark, source, target, cp, startingVersion="2", **options)
        return ids(spark, target)

    assert "ignoreDeletes" in raises_silt(SourceRowsChangedException, lambda: run("plain"))
    assert run("deletes", ignoreDeletes="true") == list(range(12, 18))
    spark.sql(f"DELETE FROM silt.`{source}` WHERE id = 13")  # v4: a deletion vector on a file of v3 (13, 16)
    assert "version 4" in raises_silt(SourceRowsChangedException, lambda: run("deletes2", ignoreDeletes="true"))
    # ignoreChanges reads the rewritten file again: its rows that are left (the deletion vector applied)
    assert run("changes", ignoreChanges="true") == [12, 13, 14, 15, 16, 16, 17]
    assert run("skip", skipChangeCommits="true") == list(range(12, 18))


def test_deletion_vectors_are_applied_to_the_initial_snapshot(spark, paths):
    source, target, cp = paths
    spark.sql(f"CREATE TABLE silt.`{source}` (id BIGINT, k INT) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    append(spark, source, (0, 20), files=2)
    spark.sql(f"DELETE FROM silt.`{source}` WHERE id % 4 = 0")
    assert any("deletionVector" in line and '"add"' in line
               for f in glob.glob(os.path.join(source, "_delta_log", "*.json")) for line in open(f))
    pump(spark, source, target, cp)
    assert ids(spark, target) == [i for i in range(20) if i % 4]


def test_a_schema_change_stops_the_stream_and_a_restart_reads_the_new_schema(spark, paths):
    source, target, cp = paths
    append(spark, source, (0, 5))
    query = (spark.readStream.format("silt").load(source).writeStream.format("silt")
             .option("checkpointLocation", cp).option("mergeSchema", "true").start(target))
    try:
        query.processAllAvailable()
        spark.sql(f"ALTER TABLE silt.`{source}` ADD COLUMNS (note STRING)")  # while the query runs
        spark.createDataFrame([(5, 2, "new")], "id BIGINT, k INT, note STRING").write.format("silt") \
            .mode("append").save(source)
        message = raises_silt(SourceSchemaChangedException, query.processAllAvailable)
    finally:
        query.stop()
    assert "version 1" in message and "Restart" in message
    assert ids(spark, target) == list(range(5))
    pump(spark, source, target, cp)
    rows = sorted((r.id, r.note) for r in spark.read.format("silt").load(target).collect())
    assert rows == [(i, None) for i in range(5)] + [(5, "new")]


def test_a_table_created_again_at_the_path_is_refused(spark, paths):
    source, target, cp = paths
    append(spark, source, (0, 5))
    pump(spark, source, target, cp)
    shutil.rmtree(source)
    append(spark, source, (100, 105))
    append(spark, source, (105, 110))
    assert "new checkpoint location" in raises_silt(SourceTableReplacedException,
                                                     lambda: pump(spark, source, target, cp))
    assert ids(spark, target) == list(range(5))


def test_offsets_are_versioned_json_and_the_start_is_kept_in_the_checkpoint(spark, paths):
    source, target, cp = paths
    append(spark, source, (0, 10), files=2)
    pump(spark, source, target, cp, maxFilesPerTrigger="1")
    offsets = [json.loads(open(f).read().splitlines()[-1])
               for f in sorted(glob.glob(os.path.join(cp, "offsets", "[0-9]*")), key=lambda p: int(os.path.basename(p)))]
    assert [(o["version"], o["index"], o["isInitialSnapshot"]) for o in offsets] == [(0, 0, True), (1, -1, False)]
    assert {o["sourceVersion"] for o in offsets} == {1} and len({o["tableId"] for o in offsets}) == 1
    start = json.load(open(os.path.join(cp, "sources", "0", "silt-stream-start.json")))
    assert (start["version"], start["index"], start["isInitialSnapshot"]) == (0, -1, True)


def test_a_replayed_first_batch_reads_the_same_files(spark, paths, tmp_path):
    """The query dies after planning batch 0 and before finishing it; meanwhile the table moves on."""
    source, _, cp = paths
    append(spark, source, (0, 10), files=2)
    seen = {}

    def record(df, batch_id):
        seen[batch_id] = sorted(r.id for r in df.collect())

    def run():
        q = (spark.readStream.format("silt").option("maxFilesPerTrigger", "1").load(source).writeStream
             .foreachBatch(record).option("checkpointLocation", cp).trigger(availableNow=True).start())
        q.awaitTermination()
    run()
    first = dict(seen)
    assert sorted(first) == [0, 1]
    # as if the query died while running batch 0: its offsets are logged, nothing after them
    for folder, names in (("offsets", ["1", ".1.crc"]), ("commits", ["0", ".0.crc", "1", ".1.crc"])):
        for name in names:
            if os.path.exists(os.path.join(cp, folder, name)):
                os.remove(os.path.join(cp, folder, name))
    append(spark, source, (10, 20))
    seen.clear()
    run()
    assert seen[0] == first[0]
    assert sorted(i for b in seen.values() for i in b) == list(range(20))


def test_catalog_table_stream(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS stream_src")
    spark.sql("CREATE TABLE stream_src (id BIGINT, k INT) USING silt")
    spark.sql("INSERT INTO stream_src VALUES (1, 1), (2, 2)")
    target, cp = str(tmp_path / "dst"), str(tmp_path / "cp")
    pump(spark, None, target, cp, table="stream_src")
    spark.sql("INSERT INTO stream_src VALUES (3, 0)")
    pump(spark, None, target, cp, table="stream_src")
    assert ids(spark, target) == [1, 2, 3]
    spark.sql("DROP TABLE stream_src")


def test_options_a_stream_does_not_take_are_refused(spark, paths):
    source, target, cp = paths
    append(spark, source, (0, 5))
    assert "startingVersion" in raises_silt(UnsupportedOptionException, lambda: pump(
        spark, source, target, cp, versionAsOf="0"))
    assert "'fooBar'" in raises_silt(UnsupportedOptionException, lambda: pump(spark, source, target, cp, fooBar="1"))
    raises_silt(UnsupportedOptionException, lambda: pump(spark, source, target, cp, maxFilesPerTrigger="0"))
    raises_silt(UnsupportedOptionException, lambda: pump(spark, source, target, cp, schemaTrackingLocation="/x"))
    raises_silt(SchemaMismatchException, lambda: spark.readStream.format("silt").schema("id BIGINT").load(source))
    # the batch reader says where the streaming options belong
    assert "readStream" in raises_silt(UnsupportedOptionException, lambda: spark.read.format("silt")
                                       .option("maxFilesPerTrigger", "1").load(source).collect())
    assert not os.path.exists(target)
