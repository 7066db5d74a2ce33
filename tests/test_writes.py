"""Writing and reading Silt tables from PySpark: modes, partitioning, schema rules, time travel."""
import json
import os
import shutil
import time
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import silt
from silt.errors import translate
from conftest import files_scanned


def raises_silt(cls, fn):
    """Runs fn, expecting the engine error `cls`; returns its message."""
    with pytest.raises(Exception) as info:
        fn()
    err = translate(info.value)
    assert isinstance(err, cls), f"expected {cls.__name__}, got {info.value!r}"
    return str(err)


def commits(path):
    return sorted(p.name for p in (Path(path) / "_delta_log").glob("*.json"))


def rows(df, *cols):
    return sorted(tuple(r) for r in df.select(*cols).collect()) if cols else sorted(tuple(r) for r in df.collect())


@pytest.mark.smoke
def test_append_overwrite_and_partitions(spark, tmp_path):
    p = str(tmp_path / "t")
    df = spark.range(0, 100).withColumn("day", (F.col("id") % 4).cast("int"))
    df.write.format("silt").partitionBy("day").save(p)
    assert sorted(os.listdir(p)) == ["_delta_log", "day=0", "day=1", "day=2", "day=3"]
    df.write.format("silt").mode("append").save(p)
    t = spark.read.format("silt").load(p)
    assert t.count() == 200
    assert t.columns == ["id", "day"]
    df.limit(10).write.format("silt").mode("overwrite").save(p)
    assert spark.read.format("silt").load(p).count() == 10
    assert len(commits(p)) == 3


def test_replace_where_swaps_only_matching_partitions(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 40).withColumn("day", (F.col("id") % 4).cast("int")).write.format("silt").partitionBy("day").save(p)
    new = spark.range(1000, 1005).withColumn("day", F.lit(2).cast("int"))
    new.write.format("silt").mode("overwrite").option("replaceWhere", "day = 2").save(p)
    t = spark.read.format("silt").load(p)
    assert t.where("day = 2").count() == 5
    assert t.where("day != 2").count() == 30
    bad = spark.range(0, 3).withColumn("day", F.lit(3).cast("int"))
    before = commits(p)
    with pytest.raises(Exception, match="does not satisfy"):
        bad.write.format("silt").mode("overwrite").option("replaceWhere", "day = 2").save(p)
    assert commits(p) == before
    # a predicate on a data column replaces rows one by one (tests/test_replace_matching.py); the data must match it
    with pytest.raises(Exception, match="does not satisfy"):
        new.write.format("silt").mode("overwrite").option("replaceWhere", "id = 2").save(p)
    assert commits(p) == before


@pytest.mark.smoke
def test_schema_enforcement_and_merge(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 5).write.format("silt").save(p)
    extra = spark.range(5, 8).withColumn("extra", F.lit("x"))
    msg = raises_silt(silt.SchemaMismatchException, lambda: extra.write.format("silt").mode("append").save(p))
    assert "extra" in msg and "mergeSchema" in msg
    wrong = spark.range(0, 2).select(F.col("id").cast("string").alias("id"))
    msg = raises_silt(silt.SchemaMismatchException, lambda: wrong.write.format("silt").mode("append").save(p))
    assert "id" in msg and "string" in msg
    assert len(commits(p)) == 1
    extra.write.format("silt").mode("append").option("mergeSchema", "true").save(p)
    t = spark.read.format("silt").load(p)
    assert t.columns == ["id", "extra"]
    assert rows(t) == [(0, None), (1, None), (2, None), (3, None), (4, None), (5, "x"), (6, "x"), (7, "x")]
    # fewer columns than the table: the missing ones are null
    spark.range(100, 101).write.format("silt").mode("append").save(p)
    assert spark.read.format("silt").load(p).where("id = 100").first()["extra"] is None


def test_save_modes_error_and_ignore(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    raises_silt(silt.InvalidTableOperationException, lambda: spark.range(3).write.format("silt").save(p))
    spark.range(10).write.format("silt").mode("ignore").save(p)
    assert spark.read.format("silt").load(p).count() == 3


def test_partition_by_mismatch_is_refused(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).withColumn("k", F.col("id") % 2).write.format("silt").partitionBy("k").save(p)
    msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.range(3).withColumn("k", F.col("id") % 2)
                      .write.format("silt").partitionBy("id").mode("append").save(p))
    assert "partitioned by" in msg


@pytest.mark.smoke
def test_time_travel_by_version_and_timestamp(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 1).write.format("silt").save(p)
    time.sleep(1.1)
    spark.range(1, 3).write.format("silt").mode("append").save(p)
    assert spark.read.format("silt").option("versionAsOf", 0).load(p).count() == 1
    assert spark.read.format("silt").option("versionAsOf", 1).load(p).count() == 3
    hist = spark.sql(f"DESCRIBE HISTORY '{p}'").orderBy("version").collect()
    ts0 = hist[0]["timestamp"]
    assert spark.read.format("silt").option("timestampAsOf", str(ts0)).load(p).count() == 1
    msg = raises_silt(silt.VersionNotFoundException, lambda: spark.read.format("silt").option("versionAsOf", 5).load(p).count())
    assert "0 to 1" in msg
    raises_silt(silt.VersionNotFoundException,
                lambda: spark.read.format("silt").option("timestampAsOf", "2000-01-01").load(p).count())
    assert spark.sql(f"SELECT * FROM silt.`{p}` VERSION AS OF 0").count() == 1


def test_not_a_table_and_corrupt_commit(spark, tmp_path):
    (tmp_path / "empty").mkdir()
    msg = raises_silt(silt.NotADeltaTableException, lambda: spark.read.format("silt").load(str(tmp_path / "empty")).count())
    assert "empty" in msg
    src = str(tmp_path / "src")
    spark.range(3).write.format("silt").save(src)
    spark.range(3).write.format("silt").mode("append").save(src)
    # a copy this JVM has never read, so no cached snapshot hides the damage
    p = str(tmp_path / "t")
    shutil.copytree(src, p)
    log1 = Path(p) / "_delta_log" / "00000000000000000001.json"
    log1.write_text(log1.read_text()[:50])
    msg = raises_silt(silt.CorruptLogException, lambda: spark.read.format("silt").load(p).count())
    assert "00000000000000000001.json" in msg
    raises_silt(silt.CorruptLogException, lambda: spark.range(1).write.format("silt").mode("append").save(p))
    assert commits(p) == ["00000000000000000000.json", "00000000000000000001.json"]


def test_statistics_are_written_per_file(spark, tmp_path):
    p = str(tmp_path / "t")
    df = spark.createDataFrame([(1, "a", None), (5, "z", 2.5), (3, None, 1.0)], "i int, s string, d double")
    df.coalesce(1).write.format("silt").save(p)
    adds = [json.loads(l)["add"] for l in (Path(p) / "_delta_log" / "00000000000000000000.json").read_text().splitlines()
            if "add" in json.loads(l)]
    assert len(adds) == 1
    stats = json.loads(adds[0]["stats"])
    assert stats == {"numRecords": 3, "minValues": {"i": 1, "s": "a", "d": 1.0},
                     "maxValues": {"i": 5, "s": "z", "d": 2.5}, "nullCount": {"i": 0, "s": 1, "d": 1}}


def test_indexed_columns_property_limits_stats(spark, tmp_path):
    spark.sql(f"CREATE TABLE limited (a INT, b INT, c STRUCT<x: INT, y: INT>) USING silt LOCATION '{tmp_path}/l' "
              "TBLPROPERTIES ('delta.dataSkippingNumIndexedCols' = '3')")
    spark.sql("INSERT INTO limited VALUES (1, 2, named_struct('x', 3, 'y', 4))")
    line = [l for l in (tmp_path / "l" / "_delta_log" / "00000000000000000001.json").read_text().splitlines() if '"add"' in l][0]
    stats = json.loads(json.loads(line)["add"]["stats"])
    assert stats["minValues"] == {"a": 1, "b": 2, "c": {"x": 3}}


def test_skipping_reduces_files_scanned(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 10000, numPartitions=20).write.format("silt").save(p)
    t = spark.read.format("silt").load(p)
    assert files_scanned(spark, t) == 20
    assert files_scanned(spark, t.where("id = 1234")) == 1
    assert files_scanned(spark, t.where("id < 1000 or id >= 9500")) == 3
    assert files_scanned(spark, t.where("id IN (5, 9999)")) == 2
    assert files_scanned(spark, t.where("id IS NULL")) == 0
    assert files_scanned(spark, t.where("NOT (id >= 500)")) == 1
    assert t.where("id IN (5, 9999)").count() == 2
    spark.conf.set("spark.silt.stats.skipping.enabled", "false")
    try:
        assert files_scanned(spark, t.where("id = 1234")) == 20
    finally:
        spark.conf.unset("spark.silt.stats.skipping.enabled")


def test_partition_pruning_counts(spark, tmp_path):
    p = str(tmp_path / "t")
    (spark.range(0, 1000).withColumn("day", (F.col("id") % 10).cast("int"))
     .repartition(1).write.format("silt").partitionBy("day").save(p))
    t = spark.read.format("silt").load(p)
    assert files_scanned(spark, t.where("day = 3")) == 1
    assert files_scanned(spark, t.where("day IN (1, 2) AND id > 0")) == 2
    assert t.where("day = 3").count() == 100


@pytest.mark.smoke  # Spark 3.5 refuses these values by default; Delta keeps them as they are
@pytest.mark.parametrize("key", ["spark.sql.parquet.datetimeRebaseModeInWrite", pytest.param(
    "spark.sql.legacy.parquet.datetimeRebaseModeInWrite", marks=pytest.mark.skipif(
        not __import__("pyspark").__version__.startswith("3."), reason="the former key is gone in Spark 4"))])
def test_dates_before_1582_are_kept_as_written_unless_the_session_sets_a_mode(spark, tmp_path, key):
    p = str(tmp_path / "ancient")
    ancient = spark.sql("SELECT DATE'1000-01-01' AS d, TIMESTAMP'1850-01-01 00:00:00' AS t")
    ancient.write.format("silt").save(p)
    assert [tuple(map(str, r)) for r in spark.read.format("silt").load(p).collect()] == \
        [("1000-01-01", "1850-01-01 00:00:00")]
    # a mode the session sets (by its key or its former one) is its own: EXCEPTION refuses the values
    spark.conf.set(key, "EXCEPTION")
    try:
        with pytest.raises(Exception, match="(?i)ancient|1582|calendar"):
            ancient.write.format("silt").mode("append").save(p)
    finally:
        spark.conf.unset(key)
    assert spark.read.format("silt").load(p).count() == 1
