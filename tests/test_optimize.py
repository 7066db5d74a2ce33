"""OPTIMIZE: compaction and ZORDER BY, end to end through SQL and SiltTable."""
from collections import Counter
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import silt
from silt.errors import translate
from conftest import files_scanned


def content(df):
    return Counter(tuple(r) for r in df.collect())


def num_files(spark, path):
    return spark.sql(f"DESCRIBE DETAIL '{path}'").first()["numFiles"]


def commits(path):
    return len(list((Path(path) / "_delta_log").glob("*.json")))


@pytest.fixture()
def small_files(spark, tmp_path):
    p = str(tmp_path / "t")
    for day in range(3):
        (spark.range(0, 300, numPartitions=6).withColumn("day", F.lit(day))
         .withColumn("v", F.col("id") * 3).write.format("silt").partitionBy("day").mode("append").save(p))
    return p


@pytest.mark.smoke
def test_compaction_rewrites_small_files_and_keeps_rows(spark, small_files):
    before = content(spark.read.format("silt").load(small_files))
    assert num_files(spark, small_files) == 18
    t = silt.SiltTable.for_path(spark, small_files)
    m = t.optimize().execute_compaction().first()["metrics"]
    assert (m["numFilesRemoved"], m["numFilesAdded"], m["partitionsOptimized"], m["numBins"]) == (18, 3, 3, 3)
    assert m["zOrderStats"] is None
    assert num_files(spark, small_files) == 3
    assert content(spark.read.format("silt").load(small_files)) == before
    hist = spark.sql(f"DESCRIBE HISTORY '{small_files}' LIMIT 1").first()
    assert hist["operation"] == "OPTIMIZE" and hist["operationMetrics"]["numRemovedFiles"] == "18"
    assert hist["isBlindAppend"] is False
    # nothing left to do: no new commit
    n = commits(small_files)
    m2 = t.optimize().execute_compaction().first()["metrics"]
    assert m2["numFilesAdded"] == 0 and commits(small_files) == n


def test_where_limits_partitions(spark, small_files):
    m = spark.sql(f"OPTIMIZE '{small_files}' WHERE day = 1").first()["metrics"]
    assert m["numFilesRemoved"] == 6 and m["totalConsideredFiles"] == 6
    files = spark.sql(f"SELECT day, count(DISTINCT _metadata.file_path) AS n FROM silt.`{small_files}` GROUP BY day")
    assert {r["day"]: r["n"] for r in files.collect()} == {0: 6, 1: 1, 2: 6}
    with pytest.raises(Exception) as info:
        spark.sql(f"OPTIMIZE '{small_files}' WHERE v > 3")
    err = translate(info.value)
    assert isinstance(err, silt.InvalidTableOperationException) and "v" in str(err) and "partition column" in str(err)


def test_min_file_size_leaves_large_files(spark, small_files):
    spark.conf.set("spark.silt.optimize.minFileSize", "10")
    try:
        m = spark.sql(f"OPTIMIZE '{small_files}'").first()["metrics"]
    finally:
        spark.conf.unset("spark.silt.optimize.minFileSize")
    assert m["numFilesRemoved"] == 0 and m["totalFilesSkipped"] == 18


@pytest.mark.smoke
def test_zorder_clusters_two_columns(spark, tmp_path):
    p = str(tmp_path / "z")
    (spark.range(0, 200_000, numPartitions=16)
     .select((F.rand(7) * 1000).cast("int").alias("x"), (F.rand(8) * 1000).cast("int").alias("y"), F.col("id"))
     .write.format("silt").save(p))
    t = spark.read.format("silt").load(p)
    before = content(t)
    assert files_scanned(spark, t.where("x < 10")) == 16
    size = spark.sql(f"DESCRIBE DETAIL '{p}'").first()["sizeInBytes"]
    spark.conf.set("spark.silt.optimize.maxFileSize", str(size // 16))
    try:
        m = silt.SiltTable.for_path(spark, p).optimize().execute_zorder_by("x", "y").first()["metrics"]
    finally:
        spark.conf.unset("spark.silt.optimize.maxFileSize")
    assert m["zOrderStats"]["mergedFiles"]["num"] == m["numFilesRemoved"] and m["numFilesAdded"] == 16
    t = spark.read.format("silt").load(p)
    assert content(t) == before
    # a 4x4 grid: a 1% range on either column reads a quarter of the files
    assert files_scanned(spark, t.where("x < 10")) <= 5
    assert files_scanned(spark, t.where("y >= 990")) <= 5
    assert files_scanned(spark, t.where("x < 10 AND y < 10")) <= 2
    hist = spark.sql(f"DESCRIBE HISTORY '{p}' LIMIT 1").first()
    assert hist["operationParameters"]["zOrderBy"] == '["x","y"]'


def test_zorder_inside_partitions_leaves_others(spark, small_files):
    before = content(spark.read.format("silt").load(small_files))
    m = spark.sql(f"optimize silt.`{small_files}` where day >= 1 zorder by v").first()["metrics"]
    assert m["numFilesRemoved"] == 12 and m["partitionsOptimized"] == 2
    assert content(spark.read.format("silt").load(small_files)) == before


@pytest.mark.parametrize("cols,words", [
    ("day", ["day", "partition column"]),
    ("nope", ["nope", "no column"]),
    ("flag", ["flag", "statistics"]),
])
def test_zorder_by_bad_columns_is_refused(spark, tmp_path, cols, words):
    p = str(tmp_path / "t")
    spark.range(10).withColumn("day", F.lit(1)).withColumn("flag", F.col("id") > 3) \
        .write.format("silt").partitionBy("day").save(p)
    with pytest.raises(Exception) as info:
        spark.sql(f"OPTIMIZE '{p}' ZORDER BY ({cols})")
    err = translate(info.value)
    assert isinstance(err, silt.InvalidTableOperationException), info.value
    assert all(w in str(err) for w in words), str(err)
    assert commits(p) == 1


def test_optimize_on_catalog_table(spark):
    spark.sql("CREATE TABLE opt_events (id BIGINT, city STRING) USING silt")
    for i in range(3):
        spark.sql(f"INSERT INTO opt_events VALUES ({i}, 'c{i}')")
    m = spark.sql("OPTIMIZE opt_events ZORDER BY city").first()["metrics"]
    assert m["numFilesRemoved"] == 3 and m["numFilesAdded"] == 1
    assert sorted(r["id"] for r in spark.table("opt_events").collect()) == [0, 1, 2]


def test_peers_read_the_optimized_table(spark, tmp_path):
    deltalake = pytest.importorskip("deltalake")
    from test_interop import read_duckdb
    p = str(tmp_path / "peers")
    (spark.range(0, 5000, numPartitions=8).select("id", (F.col("id") % 97).alias("x"), (F.col("id") % 13).alias("y"))
     .write.format("silt").save(p))
    spark.sql(f"OPTIMIZE '{p}' ZORDER BY (x, y)")
    ours = sorted(tuple(r) for r in spark.read.format("silt").load(p).collect())
    rs = deltalake.DeltaTable(p).to_pyarrow_table().to_pylist()
    assert sorted((r["id"], r["x"], r["y"]) for r in rs) == ours
    assert sorted(tuple(r.values()) for r in read_duckdb(p).to_pylist()) == ours
