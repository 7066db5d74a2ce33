"""Checkpoints (classic and V2 with sidecars), log cleanup and VACUUM, end to end."""
import json
import os
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

import silt
from silt.errors import translate


def log_files(path):
    return sorted(p.name for p in (Path(path) / "_delta_log").iterdir() if not p.name.startswith("."))


def append(spark, path, n, start=0, **props):
    for i in range(start, start + n):
        spark.range(i * 10, i * 10 + 10).withColumn("k", F.lit(i % 3)).write.format("silt").mode("append").save(path)


def drop_commits_before(path, version):
    for p in (Path(path) / "_delta_log").glob("*.json"):
        if p.name[:20].isdigit() and ".checkpoint." not in p.name and int(p.name[:20]) < version:
            p.unlink()


def peers_ids(path):
    import deltalake
    from test_interop import read_duckdb
    dt = deltalake.DeltaTable(path)
    rs = deltalake.QueryBuilder().register("t", dt).execute("SELECT id FROM t").read_all()
    import pyarrow as pa
    return sorted(pa.table(rs).column("id").to_pylist()), sorted(read_duckdb(path).column("id").to_pylist())


@pytest.mark.smoke
def test_classic_checkpoint_every_ten_commits(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.createDataFrame([], "id long, k int").write.format("silt").partitionBy("k").save(p)
    append(spark, p, 10)
    names = log_files(p)
    assert "00000000000000000010.checkpoint.parquet" in names and "_last_checkpoint" in names
    last = json.loads((Path(p) / "_delta_log" / "_last_checkpoint").read_text())
    assert last["version"] == 10 and last["numOfAddFiles"] == len(spark.sql(f"DESCRIBE FILES '{p}'").collect())
    assert len(last["checksum"]) == 32
    cp = pq.read_table(Path(p) / "_delta_log" / "00000000000000000010.checkpoint.parquet")
    add_fields = {f.name for f in cp.schema.field("add").type}
    assert {"stats", "stats_parsed", "partitionValues_parsed"} <= add_fields
    expected = sorted(range(100))
    drop_commits_before(p, 10)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)  # a path this JVM never read: the rows must come from the checkpoint
    assert sorted(r["id"] for r in spark.read.format("silt").load(fresh).collect()) == expected
    assert peers_ids(fresh) == (expected, expected)
    append(spark, fresh, 1, start=10)
    assert spark.read.format("silt").load(fresh).count() == 110


def test_silt_reads_a_checkpoint_written_by_delta_rs(spark, tmp_path):
    import deltalake
    import pyarrow as pa
    p = str(tmp_path / "t")
    for i in range(3):
        batch = pa.table({"id": pa.array(range(i * 10, i * 10 + 10), pa.int64()), "k": pa.array([i] * 10, pa.int32())})
        deltalake.write_deltalake(p, batch, partition_by=["k"], mode="append")
    deltalake.DeltaTable(p).create_checkpoint()
    assert "00000000000000000002.checkpoint.parquet" in log_files(p)
    drop_commits_before(p, 2)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    rows = spark.read.format("silt").load(fresh).collect()
    assert sorted((r["id"], r["k"]) for r in rows) == [(i, i // 10) for i in range(30)]


@pytest.mark.smoke
def test_v2_checkpoint_with_sidecars(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt TBLPROPERTIES "
              "('delta.checkpointPolicy' = 'v2', 'delta.checkpointInterval' = '5')")
    spark.conf.set("spark.silt.checkpoint.v2.filesPerSidecar", "2")
    try:
        append(spark, p, 5)
    finally:
        spark.conf.unset("spark.silt.checkpoint.v2.filesPerSidecar")
    names = log_files(p)
    v2 = [n for n in names if n.startswith("00000000000000000005.checkpoint.") and n.count(".") == 3]
    assert len(v2) == 1, names
    sidecars = list((Path(p) / "_delta_log" / "_sidecars").glob("*.parquet"))
    assert len(sidecars) >= 2
    detail = spark.sql(f"DESCRIBE DETAIL '{p}'").first()
    assert "v2Checkpoint" in detail["tableFeatures"]
    drop_commits_before(p, 5)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    assert sorted(r["id"] for r in spark.read.format("silt").load(fresh).collect()) == list(range(50))
    assert peers_ids(fresh) == (list(range(50)), list(range(50)))


def test_v2_checkpoint_as_json(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt TBLPROPERTIES ('delta.checkpointPolicy' = 'v2')")
    append(spark, p, 2)
    spark.conf.set("spark.silt.checkpoint.v2.format", "json")
    try:
        silt.SiltTable.for_path(spark, p).checkpoint()
    finally:
        spark.conf.unset("spark.silt.checkpoint.v2.format")
    assert any(n.startswith("00000000000000000002.checkpoint.") and n.endswith(".json") for n in log_files(p))
    drop_commits_before(p, 2)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    assert spark.read.format("silt").load(fresh).count() == 20


def test_log_cleanup_keeps_time_travel_within_retention(spark, tmp_path, setting):
    # the commits are aged by their files' times; time travel to them is this test's, not the retention's
    setting("spark.silt.timeTravel.retentionCheck.enabled", "false")
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt TBLPROPERTIES "
              "('delta.logRetentionDuration' = 'interval 1 hours', 'delta.deletedFileRetentionDuration' = "
              "'interval 1 hours', 'delta.checkpointInterval' = '5')")
    append(spark, p, 7)
    old = time.time() - 3 * 3600
    for name in log_files(p):
        if name[:20].isdigit():
            os.utime(Path(p) / "_delta_log" / name, (old, old))
    append(spark, p, 3, start=7)  # commit 10 checkpoints and cleans up
    names = log_files(p)
    assert "00000000000000000000.json" not in names
    assert "00000000000000000005.checkpoint.parquet" in names and "00000000000000000005.json" in names
    assert spark.read.format("silt").option("versionAsOf", 6).load(p).count() == 60
    with pytest.raises(Exception) as info:
        spark.read.format("silt").option("versionAsOf", 2).load(p).count()
    assert isinstance(translate(info.value), silt.VersionNotFoundException)
    assert spark.read.format("silt").load(p).count() == 100


@pytest.mark.smoke
def test_vacuum(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    append(spark, p, 3)
    t = silt.SiltTable.for_path(spark, p)
    t.delete("id % 2 = 0")
    t.optimize().execute_compaction()  # removes the old files and their DVs from the table
    stray = Path(p) / "part-99999-never-committed.snappy.parquet"
    stray.write_bytes(b"junk")
    with pytest.raises(Exception) as info:
        t.vacuum(0)
    assert "retentionDurationCheck" in str(translate(info.value))
    assert t.vacuum(dry_run=True).count() == 0  # nothing is older than the default 7 days
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        listed = {r["path"] for r in t.vacuum(0, dry_run=True).collect()}
        assert any(x.endswith(stray.name) for x in listed)
        assert any("deletion_vector_" in x for x in listed)
        before = sorted(r["id"] for r in t.to_df().collect())
        t.vacuum(0)
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    assert not stray.exists() and not list(Path(p).glob("deletion_vector_*.bin"))
    assert sorted(r["id"] for r in t.to_df().collect()) == before
    ops = [r["operation"] for r in t.history(2).collect()]
    assert ops == ["VACUUM END", "VACUUM START"]
    assert t.history(1).first()["operationMetrics"]["numDeletedFiles"] == str(len(listed))


def test_a_failing_checkpoint_does_not_fail_the_commit(spark, tmp_path):
    p = str(tmp_path / "t")
    append(spark, p, 1)
    (Path(p) / "_delta_log" / "_last_checkpoint").mkdir()  # writing it will fail
    append(spark, p, 10, start=1)  # commit 10 tries to checkpoint
    assert spark.read.format("silt").load(p).count() == 110
    spark.conf.set("spark.silt.checkpoint.failOnError", "true")
    try:
        with pytest.raises(Exception):
            append(spark, p, 10, start=11)
    finally:
        spark.conf.unset("spark.silt.checkpoint.failOnError")


def test_an_unreadable_checkpoint_falls_back_to_the_commits(spark, tmp_path):
    p = str(tmp_path / "t")
    append(spark, p, 11)
    cp = Path(p) / "_delta_log" / "00000000000000000010.checkpoint.parquet"
    cp.write_bytes(cp.read_bytes()[:100])
    (cp.parent / f".{cp.name}.crc").unlink(missing_ok=True)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    assert spark.read.format("silt").load(fresh).count() == 110


def test_a_checkpoint_whose_files_cannot_be_read_and_no_commits_replace_is_named_with_why(spark, tmp_path):
    """A V2 checkpoint whose top-level file (protocol and metadata) reads but a sidecar does not, and
    whose earlier commits are gone: the error names the checkpoint and the sidecar's failure, not
    only the first missing commit (all a user of a 10 M-file table once saw of why its file list
    could not be read)."""
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt TBLPROPERTIES "
              "('delta.checkpointPolicy' = 'v2', 'delta.checkpointInterval' = '5')")
    append(spark, p, 5)
    drop_commits_before(p, 5)
    sidecar = next((Path(p) / "_delta_log" / "_sidecars").glob("*.parquet"))
    sidecar.write_bytes(sidecar.read_bytes()[:100])
    (sidecar.parent / f".{sidecar.name}.crc").unlink(missing_ok=True)
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    with pytest.raises(Exception) as info:
        spark.read.format("silt").load(fresh).count()
    err = translate(info.value)
    assert isinstance(err, silt.CorruptLogException), repr(info.value)
    assert sidecar.name in str(err) and "commit 0" in str(err)


def test_opening_a_table_reads_only_the_protocol_and_metadata_of_its_checkpoint(spark, tmp_path):
    p = str(tmp_path / "t")
    append(spark, p, 11)
    files = len(spark.sql(f"DESCRIBE FILES '{p}'").collect())
    fresh = str(tmp_path / "copy")
    os.rename(p, fresh)
    snapshot = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, fresh).latest()
    assert spark.read.format("silt").load(fresh).schema.names == ["id", "k"]
    assert not snapshot.isStateLoaded()
    # the checkpoint is gone before its files are read: they come from the commits instead
    cp = Path(fresh) / "_delta_log" / "00000000000000000010.checkpoint.parquet"
    cp.unlink()
    (cp.parent / f".{cp.name}.crc").unlink(missing_ok=True)
    assert snapshot.numFiles() == files and snapshot.isStateLoaded()
    assert spark.read.format("silt").load(fresh).count() == 110


def test_checkpoints_are_read_on_the_driver_like_spark_reads_them(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, k INT) USING silt PARTITIONED BY (k) "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    append(spark, p, 4)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 3")
    silt.SiltTable.for_path(spark, p).checkpoint()
    (cp,) = [f for f in (Path(p) / "_delta_log").glob("*.checkpoint.parquet")]
    jvm = spark._jvm
    actions = jvm.io.silt.actions.ParquetActionRows.read(jvm.org.apache.hadoop.fs.Path(str(cp)),
                                                            spark._jsparkSession.sessionState().newHadoopConf())
    lines = [json.loads(jvm.io.silt.actions.ActionCodec.toJson(actions.apply(i))) for i in range(actions.size())]
    table = pq.read_table(cp).to_pylist()
    expected_adds = {r["add"]["path"]: r["add"] for r in table if r["add"]}
    adds = {a["add"]["path"]: a["add"] for a in lines if "add" in a}
    assert adds.keys() == expected_adds.keys() and len(adds) >= 4
    for path, a in adds.items():
        e = expected_adds[path]
        assert a["partitionValues"] == dict(e["partitionValues"]) and a["size"] == e["size"] and a["stats"] == e["stats"]
        assert (a.get("deletionVector") or {}).get("cardinality") == (e["deletionVector"] or {}).get("cardinality")
    assert sum("metaData" in a for a in lines) == 1 and sum("protocol" in a for a in lines) == 1
    meta = next(a["metaData"] for a in lines if "metaData" in a)
    assert meta["partitionColumns"] == ["k"] and meta["configuration"]["delta.enableDeletionVectors"] == "true"


def test_checkpoint_decodes_partition_values_as_readers_do(spark, tmp_path):
    """An empty partition value of a non-string column (as some writers record null) is null in
    partitionValues_parsed, as readers decode it, instead of failing the checkpoint."""
    path = str(tmp_path / "t")
    spark.createDataFrame([(1, 10), (2, None)], "id int, p int").write.format("silt").partitionBy("p").save(path)
    commit = Path(path) / "_delta_log" / "00000000000000000000.json"
    commit.write_text(commit.read_text().replace('"p":null', '"p":""'))
    spark.conf.set("spark.silt.checkpoint.failOnError", "true")
    try:
        spark.sql(f"CHECKPOINT '{path}'").collect()
    finally:
        spark.conf.unset("spark.silt.checkpoint.failOnError")
    cp = pq.read_table(Path(path) / "_delta_log" / "00000000000000000000.checkpoint.parquet").to_pylist()
    parsed = {dict(a["add"]["partitionValues"])["p"]: a["add"]["partitionValues_parsed"]["p"] for a in cp if a["add"]}
    assert parsed == {"10": 10, "": None}
    fresh = spark.read.format("silt").load(path)
    assert sorted(r.id for r in fresh.where("p IS NULL").collect()) == [2]


# Checkpoint rows as other writers lay them out: every action a column, maps with null values,
# typed duplicates (stats_parsed) the reader skips, and columns a writer may leave out.
def _checkpoint_schema(with_dv, with_tags):
    import pyarrow as pa
    strings = pa.map_(pa.string(), pa.string())
    dv = pa.struct([("storageType", pa.string()), ("pathOrInlineDv", pa.string()), ("offset", pa.int32()),
                    ("sizeInBytes", pa.int32()), ("cardinality", pa.int64()), ("maxRowIndex", pa.int64())])
    add = [("path", pa.string()), ("partitionValues", strings), ("size", pa.int64()), ("modificationTime", pa.int64()),
           ("dataChange", pa.bool_()), ("stats", pa.string())] + ([("tags", strings)] if with_tags else []) + \
        ([("deletionVector", dv)] if with_dv else []) + \
        [("baseRowId", pa.int64()), ("defaultRowCommitVersion", pa.int64()),
         ("stats_parsed", pa.struct([("numRecords", pa.int64())]))]
    remove = [("path", pa.string()), ("deletionTimestamp", pa.int64()), ("dataChange", pa.bool_()),
              ("extendedFileMetadata", pa.bool_()), ("partitionValues", strings)] + ([("deletionVector", dv)] if with_dv else [])
    txn = [("appId", pa.string()), ("version", pa.int64()), ("lastUpdated", pa.int64())]
    return pa.schema([("txn", pa.struct(txn)), ("add", pa.struct(add)), ("remove", pa.struct(remove))])


def _checkpoint_rows():
    from hypothesis import strategies as st
    text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)
    values = st.dictionaries(text, st.none() | text, max_size=3)
    longs = st.integers(0, 2**50)
    dv = st.none() | st.fixed_dictionaries({
        "storageType": st.sampled_from(["u", "i", "p"]), "pathOrInlineDv": text, "offset": st.none() | st.integers(0, 2**30),
        "sizeInBytes": st.integers(1, 2**30), "cardinality": longs, "maxRowIndex": st.none() | longs})
    add = st.fixed_dictionaries({
        "path": text, "partitionValues": values, "size": longs, "modificationTime": longs, "dataChange": st.booleans(),
        "stats": st.none() | text, "tags": st.none() | values, "deletionVector": dv,
        "baseRowId": st.none() | longs, "defaultRowCommitVersion": st.none() | longs,
        "stats_parsed": st.none() | st.fixed_dictionaries({"numRecords": longs})})
    remove = st.fixed_dictionaries({"path": text, "deletionTimestamp": st.none() | longs, "dataChange": st.booleans(),
                                    "extendedFileMetadata": st.none() | st.booleans(), "partitionValues": values,
                                    "deletionVector": dv})
    txn = st.fixed_dictionaries({"appId": text, "version": longs, "lastUpdated": st.none() | longs})
    return st.lists(st.one_of(add.map(lambda a: {"add": a}), remove.map(lambda r: {"remove": r}),
                              txn.map(lambda t: {"txn": t})), max_size=40)


def _as_read(kind, fields, with_dv, with_tags):
    """What a reader must make of a checkpoint row: the codec's JSON of the action, in comparable form."""
    if kind == "txn":
        return {k: v for k, v in fields.items() if v is not None}
    out = {"path": fields["path"], "partitionValues": fields["partitionValues"], "dataChange": fields["dataChange"]}
    dv = fields["deletionVector"] if with_dv else None
    out["deletionVector"] = {k: v for k, v in dv.items() if v is not None} if dv else None
    if kind == "add":
        out.update({k: fields[k] for k in ("size", "modificationTime", "stats", "baseRowId", "defaultRowCommitVersion")})
        out["tags"] = (fields["tags"] if with_tags else None) or {}
    else:
        out["deletionTimestamp"] = fields["deletionTimestamp"]
        out["extendedFileMetadata"] = fields["extendedFileMetadata"]
        if not fields["extendedFileMetadata"]:  # the codec writes a remove's partition values only then
            out["partitionValues"] = {}
    return out


def _comparable(kind, a):
    if kind == "txn":
        return a
    keys = ["path", "partitionValues", "dataChange", "deletionVector"] + (
        ["size", "modificationTime", "stats", "baseRowId", "defaultRowCommitVersion", "tags"] if kind == "add"
        else ["deletionTimestamp", "extendedFileMetadata"])
    out = {k: a.get(k) for k in keys}
    out["partitionValues"] = out["partitionValues"] or {}  # the codec leaves an empty map out
    if kind == "add":
        out["tags"] = out["tags"] or {}
    return out


def test_checkpoint_rows_read_on_the_driver_are_the_actions_written(spark, tmp_path):
    """Any add, remove and txn rows, with nulls anywhere a writer may leave them and columns left out,
    read back as the same actions, in row order (property-based)."""
    import pyarrow as pa
    from hypothesis import given, settings, HealthCheck
    from hypothesis import strategies as st
    jvm = spark._jvm
    conf = spark._jsparkSession.sessionState().newHadoopConf()
    counter = iter(range(10**6))

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(rows=_checkpoint_rows(), with_dv=st.booleans(), with_tags=st.booleans())
    def check(rows, with_dv, with_tags):
        schema = _checkpoint_schema(with_dv, with_tags)
        def shaped(row, column):
            kind = next(iter(row))
            if kind != column.name:
                return None
            return {f.name: (list(row[kind][f.name].items()) if isinstance(row[kind].get(f.name), dict)
                             and pa.types.is_map(f.type) else row[kind].get(f.name)) for f in column.type}
        table = pa.Table.from_pylist([{c.name: shaped(r, c) for c in schema} for r in rows], schema=schema)
        path = tmp_path / f"{next(counter)}.checkpoint.parquet"
        pq.write_table(table, path, row_group_size=7)  # several row groups
        # in pieces of whole row groups, as the threads of a snapshot's read take them
        rows_of = jvm.io.silt.actions.ParquetActionRows
        pieces = rows_of.pieces(jvm.org.apache.hadoop.fs.Path(str(path)), conf, 3)
        assert pieces.size() == max(1, min(3, pq.ParquetFile(path).num_row_groups))
        got = []
        for p in range(pieces.size()):
            actions = rows_of.read(pieces.apply(p), conf)
            got += [json.loads(jvm.io.silt.actions.ActionCodec.toJson(actions.apply(i))) for i in range(actions.size())]
        assert [next(iter(a)) for a in got] == [next(iter(r)) for r in rows]
        for a, r in zip(got, rows):
            kind = next(iter(r))
            assert _comparable(kind, a[kind]) == _as_read(kind, r[kind], with_dv, with_tags), (kind, r)

    check()
