"""DELETE, UPDATE and MERGE, with deletion vectors and copy-on-write; REORG PURGE; silt.dv."""
import re
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

import silt
import silt.dv
from silt.errors import translate


def make_table(spark, path, dvs, rows=3000, files_per_day=4):
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day INT, city STRING) USING silt PARTITIONED BY (day) "
              f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{str(dvs).lower()}')")
    (spark.range(0, rows, numPartitions=files_per_day)
     .select("id", (F.col("id") % 3).cast("int").alias("day"),
             F.concat(F.lit("c"), (F.col("id") % 7).cast("string")).alias("city"))
     .write.format("silt").mode("append").save(path))
    return silt.SiltTable.for_path(spark, path)


def rows(spark, path):
    return Counter(tuple(r) for r in spark.read.format("silt").load(path).collect())


def data_files(path):
    return sorted(str(p.relative_to(path)) for p in Path(path).rglob("*.parquet"))


def last_metrics(spark, path):
    return spark.sql(f"DESCRIBE HISTORY '{path}' LIMIT 1").first()


@pytest.mark.smoke
def test_delete_marks_rows_without_rewriting_files(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    before_files = data_files(p)
    assert t.delete("id % 10 = 0").first()["num_affected_rows"] == 300
    assert data_files(p) == before_files
    result = rows(spark, p)
    assert sum(result.values()) == 2700 and all(r[0] % 10 for r in result)
    h = last_metrics(spark, p)
    assert h["operation"] == "DELETE" and h["operationMetrics"]["numDeletionVectorsAdded"] == "12"
    # one DV file per task, not one per data file
    assert 1 <= len(list(Path(p).glob("deletion_vector_*.bin"))) <= spark.sparkContext.defaultParallelism
    # Python's DV reader agrees with the engine: the marked rows are exactly the deleted ones
    for f in t.deletion_vectors().collect():
        bitmap = silt.dv.load(f["deletionVector"].asDict(), p, f["path"])
        assert len(bitmap) == f["deletedRows"]
        ids = pq.read_table(f["absolutePath"].replace("file:", "")).column("id").to_pylist()
        assert sorted(i for n, i in enumerate(ids) if n in bitmap) == sorted(i for i in ids if i % 10 == 0)


def test_second_delete_unites_with_the_old_vector(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    t.delete("id % 10 = 0")
    t.delete("id % 10 = 1")
    h = last_metrics(spark, p)["operationMetrics"]
    assert h["numDeletionVectorsUpdated"] == "12" and h["numDeletedRows"] == "300"
    assert sum(rows(spark, p).values()) == 2400
    stats = t.files().select("numRecords", "numLogicalRecords", "stats").collect()
    assert all(r["numRecords"] - r["numLogicalRecords"] > 0 and '"tightBounds":false' in r["stats"] for r in stats)


def test_delete_writes_the_same_vectors_whether_files_are_read_whole_or_split(spark, tmp_path):
    # whole files: each scan task writes the DVs of its files; split files (tiny split size): the
    # rows of a file are gathered by a shuffle first
    vectors = {}
    for mode, split_bytes in (("whole", None), ("split", "2k")):
        p = str(tmp_path / mode)
        t = make_table(spark, p, dvs=True)
        t.delete("id % 10 = 0")
        if split_bytes:
            spark.conf.set("spark.sql.files.maxPartitionBytes", split_bytes)
        try:
            t.delete("id % 10 = 1")
        finally:
            spark.conf.unset("spark.sql.files.maxPartitionBytes")
        assert sum(rows(spark, p).values()) == 2400
        dvs = t.deletion_vectors().collect()
        vectors[mode] = sorted(sorted(silt.dv.load(r["deletionVector"].asDict(), p, r["path"])) for r in dvs)
    assert vectors["whole"] == vectors["split"] and len(vectors["whole"]) == 12
    assert all(len(v) == 50 for v in vectors["whole"])


@pytest.mark.parametrize("dvs", [True, False])
def test_row_indexes_are_parquet_positions_in_every_read_path(spark, tmp_path, dvs):
    # Whole unfiltered files count their rows; split files and pushed filters use Spark's row
    # index. Small row groups and pages make every file hold several of each.
    p = str(tmp_path / "t")
    spark.conf.set("parquet.block.size", "8192")
    spark.conf.set("parquet.page.size", "2048")
    try:
        t = make_table(spark, p, dvs=dvs, rows=40000, files_per_day=2)
        t.delete("id % 7 = 3")
    finally:
        spark.conf.unset("parquet.block.size")
        spark.conf.unset("parquet.page.size")
    files = {r["absolutePath"]: r for r in t.files().collect()}
    ids = {f.replace("file:", ""): pq.read_table(f.replace("file:", "")).column("id").to_pylist() for f in files}
    assert all(pq.ParquetFile(f).metadata.num_row_groups > 2 for f in ids)
    assert all(Path(f).stat().st_size > 25 * 1024 for f in ids)  # so that "split" splits each file
    reads = {"whole": (None, "true"), "filtered": ("id >= 1000", "true"), "split": (None, "true"),
             "rows": (None, "false")}
    for name, (where, vectorized) in reads.items():
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
        if name == "split":
            spark.conf.set("spark.sql.files.maxPartitionBytes", "20k")
        try:
            df = spark.read.format("silt").load(p)
            df = df.where(where) if where else df
            got = df.select("id", "_metadata.file_path", "_metadata.row_index").collect()
        finally:
            spark.conf.unset("spark.sql.parquet.enableVectorizedReader")
            spark.conf.unset("spark.sql.files.maxPartitionBytes")
        expected = sum(1 for f in ids.values() for i in f if i % 7 != 3 and (where is None or i >= 1000))
        assert len(got) == expected, name
        assert all(ids[r["file_path"].replace("file:", "")][r["row_index"]] == r["id"] for r in got), name


@pytest.mark.smoke
def test_deleted_rows_are_dropped_in_every_read_path_of_every_column_type(spark, tmp_path):
    # The reader compacts batches in place (or skips rows when it reads rows), so the plan of a
    # plain scan holds no filter. Nulls in every column type; two DELETEs so the DVs are unions.
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, city STRING, amount DECIMAL(25,2), ok BOOLEAN, "
              "tags ARRAY<STRING>, point STRUCT<x: INT, y: DOUBLE>, attrs MAP<STRING, INT>, day INT) "
              "USING silt PARTITIONED BY (day) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    source = spark.range(0, 6000, numPartitions=3).selectExpr(
        "id", "IF(id % 13 = 0, NULL, concat('c', CAST(id % 7 AS STRING))) AS city",
        "IF(id % 17 = 0, NULL, CAST(id * 1000000000.01 AS DECIMAL(25,2))) AS amount",
        "IF(id % 19 = 0, NULL, id % 2 = 0) AS ok",
        "IF(id % 23 = 0, NULL, array_repeat(CAST(id AS STRING), CAST(id % 3 AS INT))) AS tags",
        "IF(id % 29 = 0, NULL, named_struct('x', CAST(id % 100 AS INT), 'y', IF(id % 31 = 0, NULL, CAST(id AS DOUBLE) / 4))) AS point",
        "IF(id % 37 = 0, NULL, map('k', CAST(id AS INT))) AS attrs", "CAST(id % 2 AS INT) AS day")
    source.write.format("silt").mode("append").save(p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 5 = 1")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 11 = 0")

    def as_json(df):
        return sorted(r[0] for r in df.selectExpr("to_json(struct(*))").collect())

    kept = source.where("id % 5 != 1 AND id % 11 != 0")
    reads = {"whole": ({}, None), "split": ({"spark.sql.files.maxPartitionBytes": "16k"}, None),
             "filtered": ({}, "id >= 1000"), "rows": ({"spark.sql.parquet.enableVectorizedReader": "false"}, None),
             "nested as rows": ({"spark.sql.parquet.enableNestedColumnVectorizedReader": "false"}, None)}
    for name, (conf, where) in reads.items():
        for k, v in conf.items():
            spark.conf.set(k, v)
        try:
            df = spark.read.format("silt").load(p)
            df = df.where(where) if where else df
            expected = kept.where(where) if where else kept
            assert as_json(df) == as_json(expected.select(*df.columns)), name
            assert df.count() == expected.count(), name
            assert df.select("city", "day").distinct().count() == expected.select("city", "day").distinct().count(), name
            if where is None:
                assert not re.search(r"\bFilter\b", df._jdf.queryExecution().executedPlan().toString()), name
        finally:
            for k in conf:
                spark.conf.unset(k)


def test_dv_delete_spreads_whole_files_over_a_multiple_of_the_cores(spark, tmp_path):
    # 12 files of ~1.8 KB with a 4.5-file split size: Spark would pack them into 3 tasks, and on
    # 2 cores the third would run alone; the DELETE's scan uses 4 (one DV file each).
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    sizes = [r["size"] for r in t.files().collect()]
    assert len(sizes) == 12 and spark.sparkContext.defaultParallelism == 2
    spark.conf.set("spark.sql.files.openCostInBytes", "0")
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(int(4.5 * max(sizes))))
    try:
        assert t.delete("id % 10 = 0").first()["num_affected_rows"] == 300
    finally:
        spark.conf.unset("spark.sql.files.openCostInBytes")
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    assert len(list(Path(p).glob("deletion_vector_*.bin"))) == 4
    assert sum(rows(spark, p).values()) == 2700


def test_deleting_every_row_of_a_file_removes_it(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    t.delete("id < 750")  # the first write task's files hold ids 0..749
    files = t.files().collect()
    assert all(r["numRecords"] > 0 for r in files)
    assert sum(r["numLogicalRecords"] for r in files) == 2250
    assert t.deletion_vectors().count() == 0


def test_partition_predicate_drops_whole_files(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    assert t.delete("day = 1").first()["num_affected_rows"] == 1000
    assert not list(Path(p).glob("*.bin"))
    assert last_metrics(spark, p)["operationMetrics"]["numRemovedFiles"] == "4"


@pytest.mark.smoke
@pytest.mark.parametrize("dvs", [True, False])
def test_update_and_merge_agree_across_modes(spark, tmp_path, dvs):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=dvs, rows=600, files_per_day=2)
    assert t.update("id < 30", {"city": "'UPD'"}).first()["num_affected_rows"] == 30
    spark.range(590, 610).select("id", (F.col("id") % 3).cast("int").alias("day"), F.lit("M").alias("city")) \
        .createOrReplaceTempView("merge_src")
    m = spark.sql(f"MERGE INTO silt.`{p}` t USING merge_src s ON t.id = s.id "
                  "WHEN MATCHED AND s.id % 2 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET * "
                  "WHEN NOT MATCHED THEN INSERT *").first()
    assert (m["num_updated_rows"], m["num_deleted_rows"], m["num_inserted_rows"]) == (5, 5, 10)
    got = rows(spark, p)
    expected = Counter()
    for i in range(0, 610):
        if 590 <= i < 600 and i % 2 == 0:
            continue
        city = "UPD" if i < 30 else ("M" if i >= 590 else f"c{i % 7}")
        expected[(i, i % 3, city)] += 1
    assert got == expected
    assert bool(list(Path(p).glob("*.bin"))) == dvs


def test_deletion_vectors_need_the_property(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=False)
    t.delete("id = 5")
    assert not list(Path(p).glob("*.bin"))
    m = last_metrics(spark, p)["operationMetrics"]
    assert m["numDeletedRows"] == "1" and int(m["numCopiedRows"]) > 0
    assert spark.sql(f"DESCRIBE DETAIL '{p}'").first()["minReaderVersion"] == 1
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    d = spark.sql(f"DESCRIBE DETAIL '{p}'").first()
    assert (d["minReaderVersion"], d["minWriterVersion"]) == (3, 7) and "deletionVectors" in d["tableFeatures"]
    t.delete("id = 6")
    assert list(Path(p).glob("*.bin"))


def test_optimize_and_reorg_purge_deleted_rows(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True)
    t.delete("id % 10 = 0")  # 10% deleted: above the default 5% ratio
    before = rows(spark, p)
    m = spark.sql(f"OPTIMIZE '{p}' WHERE day = 0").first()["metrics"]
    assert m["numFilesRemoved"] == 4
    assert t.deletion_vectors().count() == 8
    m = spark.sql(f"REORG TABLE '{p}' APPLY (PURGE)").first()["metrics"]
    assert m["numFilesRemoved"] == 8
    assert t.deletion_vectors().count() == 0
    assert rows(spark, p) == before
    assert last_metrics(spark, p)["operation"] == "REORG"
    assert sum(r["numRecords"] for r in t.files().collect()) == 2700


def test_corrupt_deletion_vector_is_named(spark, tmp_path):
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True, rows=100, files_per_day=1)
    t.delete("id = 3")
    dv_file = next(Path(p).glob("deletion_vector_*.bin"))
    data = bytearray(dv_file.read_bytes())
    data[-6] ^= 0xFF
    dv_file.write_bytes(bytes(data))
    crc = dv_file.parent / f".{dv_file.name}.crc"
    crc.unlink(missing_ok=True)
    with pytest.raises(silt.CorruptDeletionVectorException) as info:
        spark.read.format("silt").load(p).collect()
    assert dv_file.name in str(info.value)
    with pytest.raises(silt.CorruptDeletionVectorException, match="checksum"):
        f = t.deletion_vectors().first()
        silt.dv.load(f["deletionVector"].asDict(), p, f["path"])


def test_peers_read_tables_with_deletion_vectors(spark, tmp_path):
    deltalake = pytest.importorskip("deltalake")
    p = str(tmp_path / "t")
    t = make_table(spark, p, dvs=True, rows=500, files_per_day=2)
    t.delete("id % 7 = 0")
    ours = sorted(r["id"] for r in spark.read.format("silt").load(p).collect())
    # delta-rs applies deletion vectors in its query engine (to_pyarrow_table refuses DV tables)
    result = deltalake.QueryBuilder().register("t", deltalake.DeltaTable(p)).execute("SELECT id FROM t").read_all()
    theirs = sorted(pa.table(result).column("id").to_pylist())
    assert theirs == ours and len(ours) == 500 - 72
    from test_interop import read_duckdb
    assert sorted(read_duckdb(p).column("id").to_pylist()) == ours


def test_assigned_structs_are_matched_to_the_column_by_name(spark, tmp_path):
    # Spark's cast of a struct matches fields by position; Silt matches them by name, as Delta Lake
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRUCT<a: STRING, b: STRING, n: STRUCT<x: INT, y: INT>>) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, named_struct('a', 'A', 'b', 'B', 'n', named_struct('x', 1, 'y', 2)))")
    spark.sql(f"UPDATE silt.`{p}` SET s = named_struct('b', 'uB', 'n', named_struct('y', 20, 'x', 10), 'a', 'uA')")
    assert spark.read.format("silt").load(p).first()["s"] == ("uA", "uB", (10, 20))
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 1L AS id, named_struct('n', named_struct('y', 4, 'x', 3), "
              "'b', 'mB', 'a', 'mA') AS s UNION ALL SELECT 2L, named_struct('n', named_struct('y', 6, 'x', 5), 'b', 'iB', "
              "'a', 'iA')) src ON t.id = src.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    got = sorted(tuple(r) for r in spark.read.format("silt").load(p).collect())
    assert got == [(1, ("mA", "mB", (3, 4))), (2, ("iA", "iB", (5, 6)))]
    # inside an array, Silt does not reorder: refused rather than matched by position
    q = str(tmp_path / "arr")
    spark.sql(f"CREATE TABLE silt.`{q}` (id BIGINT, arr ARRAY<STRUCT<a: STRING, b: STRING>>) USING silt")
    spark.sql(f"INSERT INTO silt.`{q}` VALUES (1, array(named_struct('a', 'A', 'b', 'B')))")
    with pytest.raises(Exception, match="another order"):
        spark.sql(f"UPDATE silt.`{q}` SET arr = array(named_struct('b', 'x', 'a', 'y'))")
    assert spark.read.format("silt").load(q).first()["arr"] == [("A", "B")]


def cow_table_of_8_files(spark, path, row_tracking=False):
    """8 files of 1,000 rows each (file i holds ids 1000*i ..), no deletion vectors; the files in
    path order, as a DELETE's sample orders them, by their first id."""
    (spark.range(0, 8000, numPartitions=8).selectExpr("id", "CAST(id % 7 AS INT) AS v").write.format("silt")
     .option("delta.enableDeletionVectors", "false").option("delta.enableRowTracking", str(row_tracking).lower())
     .save(path))
    t = silt.SiltTable.for_path(spark, path)
    files = sorted(r["path"] for r in t.files().collect())
    return t, [pq.read_table(Path(path) / f, columns=["id"]).column("id")[0].as_py() // 1000 for f in files]


# Which files (by position in path order) lose rows. A DELETE samples the files at positions
# 0, 2, 4, 6 (4 of 8, spread evenly): when all of them lose rows it rewrites all 8 in one pass.
SAMPLED = [0, 2, 4, 6]


@pytest.mark.parametrize("touched, speculate, removed", [
    (range(8), True, 8),               # every file loses rows: one pass, the same outcome
    (SAMPLED, True, 8),                # the bet is lost: the 4 untouched files are rewritten unchanged
    pytest.param(SAMPLED, False, 4, marks=pytest.mark.full),  # the setting off: only the touched files
    ([1, 3, 5, 7], True, 4),           # a sampled file loses nothing: no bet
    pytest.param([0, 2, 4, 5, 6], True, 8, marks=pytest.mark.full),
    pytest.param([0, 1, 2, 3, 4, 5, 7], True, 7, marks=pytest.mark.full),
])
def test_copy_on_write_delete_rewrites_in_one_pass_when_a_sample_says_every_file_loses_rows(
        spark, tmp_path, touched, speculate, removed):
    p = str(tmp_path / "t")
    t, first_ids = cow_table_of_8_files(spark, p)
    ids = [first_ids[i] * 1000 + k for i in touched for k in (3, 500)]
    spark.conf.set("spark.silt.delete.speculativeRewrite.enabled", str(speculate).lower())
    try:
        # abs(id): no statistics rule for it, so that every file is a candidate
        assert t.delete(F.abs("id").isin(ids)).first()["num_affected_rows"] == len(ids)
    finally:
        spark.conf.unset("spark.silt.delete.speculativeRewrite.enabled")
    assert rows(spark, p) == Counter((i, i % 7) for i in range(8000) if i not in set(ids))
    m = last_metrics(spark, p)["operationMetrics"]
    assert (m["numDeletedRows"], m["numRemovedFiles"], m["numCopiedRows"]) == \
        (str(len(ids)), str(removed), str(removed * 1000 - len(ids)))


@pytest.mark.full
def test_copy_on_write_delete_in_one_pass_keeps_row_ids(spark, tmp_path):
    p = str(tmp_path / "t")
    t, _ = cow_table_of_8_files(spark, p, row_tracking=True)
    before = {r["id"]: r["row_id"] for r in spark.read.format("silt").load(p).selectExpr("id", "_metadata.row_id").collect()}
    t.delete("id % 100 = 7")
    after = spark.read.format("silt").load(p).selectExpr("id", "_metadata.row_id").collect()
    assert len(after) == 7920 and all(before[r["id"]] == r["row_id"] for r in after)
    assert last_metrics(spark, p)["operationMetrics"]["numRemovedFiles"] == "8"


@pytest.mark.parametrize("statement", [
    "DELETE FROM silt.`{p}` WHERE id IN (SELECT id FROM silt.`{p}` WHERE day = 1)",
    "UPDATE silt.`{p}` SET city = 'x' WHERE EXISTS (SELECT 1 FROM silt.`{p}` WHERE day = 2)"])
def test_a_subquery_in_a_delete_or_update_condition_is_refused_by_deltas_class(spark, tmp_path, statement):
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=True, rows=30)
    before = rows(spark, p)
    with pytest.raises(Exception) as info:
        spark.sql(statement.format(p=p))
    assert info.value.getCondition() == "DELTA_UNSUPPORTED_SUBQUERY"
    assert "Subqueries are not supported in the" in str(info.value) and "MERGE INTO" in str(info.value)
    assert rows(spark, p) == before
