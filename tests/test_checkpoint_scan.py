"""Tables whose checkpoint holds more than `spark.silt.snapshot.maxDriverFiles` files keep no file
list on the driver: a scan reads the files it needs from the checkpoint's row groups that its
partition filters do not rule out, less what the commits after the checkpoint changed, and returns
the rows a scan of the file list returns."""
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from test_checkpoint_replay import build, state_loaded

LIMIT = "spark.silt.snapshot.maxDriverFiles"
QUERIES = ["k = 1", "k IN (0, 2)", "k > 0", "k <= 1 AND id > 30", "k IS NULL", "k IS NOT NULL OR id = 3", "id = 42",
           "s = 'u'", "k = 2 OR id < 5", "id BETWEEN 20 AND 40", "true"]


def rows(spark, path, where):
    return sorted(tuple(r) for r in spark.read.format("silt").load(path).where(where).collect())


def small_and_large(spark, tmp_path, setting):
    """The table `build` makes, and a copy of it read as a large table (its cached snapshot open): (src, large)."""
    src, large = str(tmp_path / "src"), str(tmp_path / "large")
    build(spark, src, "classic")
    shutil.copytree(src, large)
    setting(LIMIT, "0")
    assert rows(spark, large, "true") == rows(spark, src, "true")
    return src, large


@pytest.mark.parametrize("policy", ["classic", pytest.param("v2", marks=pytest.mark.full)])  # V2: second tier
def test_scans_of_a_large_table_read_its_checkpoint_and_return_the_same_rows(spark, tmp_path, setting, policy):
    src = str(tmp_path / "src")
    build(spark, src, policy)  # checkpoint at 6, then commits 7 to 10 (an append, deletes, an OPTIMIZE)
    expected = {q: rows(spark, src, q) for q in QUERIES}
    large = str(tmp_path / "large")
    shutil.copytree(src, large)
    setting(LIMIT, "0")
    for q in QUERIES:
        assert rows(spark, large, q) == expected[q], q
    assert not state_loaded(spark, large)  # no query read the file list
    joined = spark.read.format("silt").load(large).alias("a").join(spark.read.format("silt").load(src).alias("b"), "id")
    assert joined.count() == len(expected["true"])


def test_partition_filters_rule_out_row_groups_by_their_typed_partition_values(spark, tmp_path, setting):
    """A checkpoint whose second row group's typed partition values (deliberately) disagree with its
    raw ones: a scan filtered on the raw value finds no file there, since it never reads that row
    group; the file list, which reads the raw values, finds them."""
    p = tmp_path / "t"
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, day INT) USING silt PARTITIONED BY (day)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 1), (2, 2)")
    spark.sql(f"CHECKPOINT '{p}'")
    cp = p / "_delta_log" / f"{1:020d}.checkpoint.parquet"
    table = pq.read_table(cp)
    adds = table.filter(pa.compute.is_valid(table.column("add")))
    others = table.filter(pa.compute.invert(pa.compute.is_valid(table.column("add"))))
    rows_ = adds.to_pylist()
    for r in rows_:
        if dict(r["add"]["partitionValues"])["day"] == "2":
            r["add"]["partitionValues_parsed"]["day"] = 99
    (cp.parent / f".{cp.name}.crc").unlink(missing_ok=True)  # the local file system's checksum of the old file
    with pq.ParquetWriter(cp, table.schema) as w:
        w.write_table(others)
        for r in rows_:
            w.write_table(pa.Table.from_pylist([r], schema=table.schema))
    fresh = str(tmp_path / "fresh")
    shutil.copytree(p, fresh)
    setting(LIMIT, "0")
    assert rows(spark, fresh, "day = 2") == []
    assert rows(spark, fresh, "day = 1") == [(1, 1)]
    spark.conf.unset(LIMIT)
    again = str(tmp_path / "again")
    shutil.copytree(p, again)
    assert rows(spark, again, "day = 2") == [(2, 2)]


def test_a_small_table_still_reads_its_file_list(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(10).selectExpr("id", "CAST(id % 2 AS INT) AS k").write.format("silt").partitionBy("k").save(p)
    spark.sql(f"CHECKPOINT '{p}'")
    fresh = str(tmp_path / "fresh")
    shutil.copytree(p, fresh)
    assert rows(spark, fresh, "k = 1") == [(i, 1) for i in range(1, 10, 2)]
    assert state_loaded(spark, fresh)


def test_writes_to_a_large_table_and_commits_found_later_keep_its_file_list_unread(spark, tmp_path, setting):
    """A commit to a large table (append, DELETE, UPDATE, MERGE) makes its next snapshot from the
    same checkpoint and one more commit; a commit another writer made is read onto the cached
    snapshot's checkpoint scan. None reads the file list, and all read the rows the file list reads."""
    src, large = small_and_large(spark, tmp_path, setting)
    for target in (src, large):
        spark.range(200, 210).selectExpr("id", "CAST(id % 3 AS INT) AS k", "'a' AS s").write.format("silt") \
            .mode("append").save(target)
        spark.sql(f"INSERT INTO silt.`{target}` VALUES (300, 1, 'b')")
        spark.sql(f"DELETE FROM silt.`{target}` WHERE k = 2 AND id > 200")
        spark.sql(f"UPDATE silt.`{target}` SET s = 'v' WHERE id = 300")
        spark.sql(f"""MERGE INTO silt.`{target}` t USING (SELECT 300L AS id, 1 AS k UNION ALL SELECT 400L, 2) u
                      ON t.id = u.id AND t.k = 1 WHEN MATCHED THEN UPDATE SET s = 'w'
                      WHEN NOT MATCHED THEN INSERT (id, k, s) VALUES (u.id, u.k, 'n')""")
    assert not state_loaded(spark, large)
    for q in QUERIES:
        assert rows(spark, large, q) == rows(spark, src, q), q
    # another writer's commit (here: src's, copied over) is found by the next read
    before = {f.relative_to(src) for f in Path(src).rglob("*")}
    spark.range(500, 505).selectExpr("id", "1 AS k", "'c' AS s").write.format("silt").mode("append").save(src)
    for f in Path(src).rglob("*"):
        if f.is_file() and f.relative_to(src) not in before:
            (Path(large) / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(f, Path(large) / f.relative_to(src))
    assert not state_loaded(spark, large)
    assert rows(spark, large, "true") == rows(spark, src, "true")
    assert not state_loaded(spark, large)
    log = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, large)
    assert log.latest().version() == 16
    detail = [spark.sql(f"DESCRIBE DETAIL '{t}'").select("numFiles", "sizeInBytes").first() for t in (large, src)]
    assert detail[0] == detail[1]
    assert not state_loaded(spark, large)
    assert log.latest().numFiles() == spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, src).latest().numFiles()


@pytest.mark.full  # second tier: the appends and row-level writes above are make test's slice
def test_partition_scoped_writes_and_optimize_on_a_large_table_read_only_their_partitions(spark, tmp_path, setting):
    """replaceWhere, a dynamic partition overwrite and OPTIMIZE WHERE read the files of their
    partitions from a large table's checkpoint, without its file list, and leave the rows the same
    statements leave on the small table."""
    src, large = small_and_large(spark, tmp_path, setting)
    for target in (src, large):
        spark.range(600, 604).selectExpr("id", "2 AS k", "'r' AS s").write.format("silt").mode("overwrite") \
            .option("replaceWhere", "k = 2").save(target)
        spark.range(700, 702).selectExpr("id", "CAST(0 AS INT) AS k", "'d' AS s").write.format("silt") \
            .mode("overwrite").option("partitionOverwriteMode", "dynamic").save(target)
        spark.sql(f"OPTIMIZE '{target}' WHERE k = 1")
    assert not state_loaded(spark, large)
    for q in QUERIES:
        assert rows(spark, large, q) == rows(spark, src, q), q
    history = [spark.sql(f"DESCRIBE HISTORY '{t}'").where("version > 10").orderBy("version")
               .select("operation", "operationMetrics.numRemovedFiles", "operationMetrics.numFiles").collect()
               for t in (src, large)]
    assert history[0] == history[1]
    shown = [sorted(spark.sql(f"SHOW PARTITIONS silt.`{t}`").collect()) for t in (src, large)]
    assert shown[0] == shown[1] and len(shown[0]) == 3
    assert not state_loaded(spark, large)


@pytest.mark.full  # second tier: a hundred commits
def test_past_a_hundred_commits_after_its_checkpoint_a_large_table_is_read_again_from_it(spark, tmp_path, setting):
    """A large table's commits build on its checkpoint for up to 100 commits; past them each new
    snapshot is read from the log (the same checkpoint and all the commits after it), still without
    the file list, and reads the rows the small table reads."""
    src, large = small_and_large(spark, tmp_path, setting)
    for i in range(105):
        for target in (src, large):
            spark.sql(f"INSERT INTO silt.`{target}` VALUES ({1000 + i}, {i % 3}, 'x')")
    log = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, large)
    assert log.latest().version() == 115
    assert not state_loaded(spark, large)
    for q in QUERIES:
        assert rows(spark, large, q) == rows(spark, src, q), q
    spark.sql(f"DELETE FROM silt.`{large}` WHERE id >= 1100")
    spark.sql(f"DELETE FROM silt.`{src}` WHERE id >= 1100")
    assert rows(spark, large, "true") == rows(spark, src, "true")
    assert not state_loaded(spark, large)


def test_optimize_of_a_whole_large_table_holds_only_its_candidates(spark, tmp_path, setting):
    """OPTIMIZE without WHERE on a large table keeps, of the files its scan reads, only those it may
    rewrite (the small ones, and those with too many deleted rows) and counts the others: it
    rewrites the files, and reports the metrics (`totalConsideredFiles` counting every file in
    scope), that OPTIMIZE of the small table does, without reading the file list."""
    src, large = small_and_large(spark, tmp_path, setting)
    sizes = sorted(os.path.getsize(f.removeprefix("file:")) for f in spark.read.format("silt").load(src).inputFiles())
    threshold = sizes[len(sizes) // 2]  # half the files are small
    setting("spark.silt.optimize.minFileSize", str(threshold))
    fields = ["numFilesAdded", "numFilesRemoved", "partitionsOptimized", "numBins", "totalConsideredFiles",
              "totalFilesSkipped"]
    metrics, held = [], []
    for t in (src, large):
        metrics.append(spark.sql(f"OPTIMIZE '{t}'").select([f"metrics.{f}" for f in fields]).first())
        held.append(spark._jvm.io.silt.optimize.OptimizeExecutor.filesHeldByLast(t))
    assert metrics[0] == metrics[1]
    assert metrics[0]["totalConsideredFiles"] == len(sizes) and 0 < metrics[0]["numFilesRemoved"] < len(sizes)
    assert held[0] == held[1]
    assert max(metrics[0]["numFilesRemoved"], sum(s < threshold for s in sizes)) <= held[1] < len(sizes)
    assert not state_loaded(spark, large)
    for q in QUERIES:
        assert rows(spark, large, q) == rows(spark, src, q), q


def test_data_filters_rule_out_row_groups_by_the_files_statistics_and_keep_files_without_them(spark, tmp_path, setting):
    """A checkpoint of 12 files in row groups of 3, written in id order: the second row group's typed
    bounds (deliberately) disagree with the files' JSON statistics, so a point query on one of its
    ids finds nothing in it (the row group is never read); a file whose typed statistics are null
    stays a candidate, as the file list keeps it."""
    p = tmp_path / "t"
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRING) USING silt")
    for i in range(12):
        spark.range(i * 10, i * 10 + 10).selectExpr("id", "CAST(id AS STRING) AS s").coalesce(1) \
            .write.format("silt").mode("append").save(str(p))
    spark.sql(f"CHECKPOINT '{p}'")
    cp = p / "_delta_log" / f"{12:020d}.checkpoint.parquet"
    table = pq.read_table(cp)
    adds = [r for r in table.to_pylist() if r["add"] is not None]
    others = table.filter(pa.compute.invert(pa.compute.is_valid(table.column("add"))))
    adds.sort(key=lambda r: r["add"]["stats_parsed"]["minValues"]["id"])
    for r in adds[3:6]:  # ids 30 to 59
        r["add"]["stats_parsed"]["minValues"]["id"] = 10 ** 9
        r["add"]["stats_parsed"]["maxValues"]["id"] = 10 ** 9
    adds[9]["add"]["stats_parsed"] = None  # ids 90 to 99: no typed statistics
    (cp.parent / f".{cp.name}.crc").unlink(missing_ok=True)
    with pq.ParquetWriter(cp, table.schema) as w:
        w.write_table(others)
        for i in range(0, 12, 3):
            w.write_table(pa.Table.from_pylist(adds[i:i + 3], schema=table.schema))
    fresh = str(tmp_path / "fresh")
    shutil.copytree(p, fresh)
    setting(LIMIT, "0")
    assert rows(spark, fresh, "id = 42") == []
    assert rows(spark, fresh, "id = 95") == [(95, "95")]
    assert rows(spark, fresh, "id > 115") == [(i, str(i)) for i in range(116, 120)]
    assert rows(spark, fresh, "id < 3 OR id = 42") == [(i, str(i)) for i in range(3)]
    assert not state_loaded(spark, fresh)
    spark.conf.unset(LIMIT)
    again = str(tmp_path / "again")
    shutil.copytree(p, again)
    assert rows(spark, again, "id = 42") == [(42, "42")]


@pytest.mark.full  # second tier
def test_a_clustered_tables_checkpoint_sorts_its_files_by_the_clustering_columns_lower_bounds(spark, tmp_path, setting):
    """Written by Spark (the table counts as large), a clustered table's checkpoint lists its files
    by their clustering column's lower bound, whatever order they were written in: a point on that
    column then reads the row groups of few files. (A log without a checkpoint keeps path order:
    its clustering domain would be read with its file list.)"""
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRING) USING silt CLUSTER BY (id)")
    for i in reversed(range(8)):
        spark.range(i * 10, i * 10 + 10).selectExpr("id", "CAST(id AS STRING) AS s").coalesce(1) \
            .write.format("silt").mode("append").save(p)
        if i == 4:
            spark.sql(f"CHECKPOINT '{p}'")  # the table's domains are read from it, not from its file list
    setting(LIMIT, "0")
    spark.sql(f"CHECKPOINT '{p}'")
    cp = pq.read_table(Path(p) / "_delta_log" / f"{8:020d}.checkpoint.parquet").to_pylist()
    lows = [r["add"]["stats_parsed"]["minValues"]["id"] for r in cp if r["add"] is not None]
    assert lows == [i * 10 for i in range(8)]
    fresh = str(tmp_path / "fresh")
    shutil.copytree(p, fresh)
    assert rows(spark, fresh, "id = 42") == [(42, "42")]
    assert not state_loaded(spark, fresh)


@pytest.mark.parametrize("mode", ["", pytest.param("LITE", marks=pytest.mark.full),  # LITE, inventory: second tier
                                  pytest.param("USING INVENTORY silt_large_inventory", marks=pytest.mark.full)])
def test_vacuum_of_a_large_table_deletes_what_the_file_list_would(spark, tmp_path, setting, mode):
    """VACUUM of a large table finds its needed files with a Spark replay and its folder's files with
    tasks: it deletes the same files (removed data files, their deletion vectors, orphans, change
    data) as VACUUM with the file list, keeps the rows readable, and never reads the file list."""
    src = str(tmp_path / "src")
    build(spark, src, "classic")
    for f in (Path(src) / "k=1" / "orphan.parquet", Path(src) / "_hidden" / "h.parquet", Path(src) / "top.parquet"):
        f.parent.mkdir(exist_ok=True)
        f.write_bytes(b"x")
    for f in Path(src).rglob("*"):
        if f.is_file() and "_delta_log" not in f.parts:
            os.utime(f, (1, 1))
    large = str(tmp_path / "large")
    shutil.copytree(src, large)
    setting("spark.silt.vacuum.retentionDurationCheck.enabled", "false")

    def vacuum(path, dry):
        if "INVENTORY" in mode:
            files = [f for f in Path(path).rglob("*") if f.is_file()]
            spark.createDataFrame([("file:" + str(f), f.stat().st_size, False, 1000) for f in files],
                                  "path string, length long, isDir boolean, modificationTime long") \
                .createOrReplaceTempView("silt_large_inventory")
        out = spark.sql(f"VACUUM silt.`{path}` {mode} RETAIN 0 HOURS {'DRY RUN' if dry else ''}").collect()
        return sorted(str(Path(r[0].removeprefix("file:")).relative_to(Path(path).resolve())) if dry else r[0]
                      for r in out)

    expected = vacuum(src, dry=True)
    assert expected  # removed files (and, listed, their unused deletion vectors and the orphans)
    assert mode == "LITE" or ({"k=1/orphan.parquet", "top.parquet"} <= set(expected) and
                              any(e.startswith("deletion_vector_") for e in expected))
    setting(LIMIT, "0")
    assert vacuum(large, dry=True) == expected
    before = rows(spark, large, "true")
    vacuum(large, dry=False)
    assert not state_loaded(spark, large)
    left = sorted(str(f.relative_to(large)) for f in Path(large).rglob("*") if f.is_file() and "_delta_log" not in f.parts)
    assert not set(left) & set(expected) and "_hidden/h.parquet" in left
    assert rows(spark, large, "true") == before


@pytest.mark.full  # second tier: make test was past 15 minutes (14 s)
def test_a_stream_reads_a_large_tables_initial_snapshot_in_the_same_batches_without_its_file_list(spark, tmp_path,
                                                                                                   setting):
    """A stream's initial snapshot of a large table is numbered by a Spark job (by modification time
    and path, a part at a time on the driver): its micro-batches read the rows a stream of the small
    table reads, batch for batch; the commits after it follow."""
    src = str(tmp_path / "src")
    build(spark, src, "classic")
    large = str(tmp_path / "large")
    shutil.copytree(src, large)

    def stream(path, name):
        target, cp = str(tmp_path / f"{name}_out"), str(tmp_path / f"{name}_cp")
        query = (spark.readStream.format("silt").option("maxFilesPerTrigger", "3").load(path).writeStream
                 .format("silt").option("checkpointLocation", cp).trigger(availableNow=True).start(target))
        query.awaitTermination()
        return [p["numInputRows"] for p in query.recentProgress if p["numInputRows"]], target

    small_batches, small_out = stream(src, "small")
    setting(LIMIT, "0")
    large_batches, large_out = stream(large, "large")
    assert large_batches == small_batches and len(large_batches) > 3
    assert rows(spark, large_out, "true") == rows(spark, small_out, "true") == rows(spark, src, "true")
    assert not state_loaded(spark, large)
