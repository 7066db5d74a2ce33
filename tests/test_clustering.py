"""Liquid clustering: CLUSTER BY on CREATE / CTAS / DataFrame writes, ALTER TABLE … CLUSTER BY and
CLUSTER BY NONE, DESCRIBE DETAIL, and OPTIMIZE of a clustered table, which clusters only what is
not clustered yet (a second run commits nothing) and everything with FULL."""
import json
import os

import pytest

import silt
from conftest import needs_spark_4
from test_writes import commits, raises_silt


def log(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f]


def domain(path, version):
    found = [a["domainMetadata"] for a in log(path, version) if "domainMetadata" in a]
    return json.loads(found[-1]["configuration"])["clusteringColumns"] if found else None


def detail(spark, path):
    return spark.sql(f"DESCRIBE DETAIL silt.`{path}`").first()


def live_files(spark, path):
    return spark.sql(f"DESCRIBE FILES silt.`{path}`").collect()


def test_create_cluster_by_records_the_protocol_and_domain(spark, tmp_path):
    t = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{t}` (x BIGINT, y BIGINT, s STRING) USING silt CLUSTER BY (x, y)")
    actions = log(t, 0)
    protocol = [a["protocol"] for a in actions if "protocol" in a][0]
    assert protocol["minReaderVersion"] == 1 and protocol["minWriterVersion"] == 7
    assert {"clustering", "domainMetadata"} <= set(protocol["writerFeatures"])
    assert domain(t, 0) == [["x"], ["y"]]
    info = [a["commitInfo"] for a in actions if "commitInfo" in a][0]
    assert json.loads(info["operationParameters"]["clusterBy"]) == ["x", "y"]
    d = detail(spark, t)
    assert d["clusteringColumns"] == ["x", "y"] and d["partitionColumns"] == []
    assert "clustering" in d["tableFeatures"]


@pytest.mark.parametrize("ddl,words", [
    ("(a INT, b INT, c INT, d INT, e INT) USING silt CLUSTER BY (a, b, c, d, e)", ["up to 4", "5"]),
    ("(x INT) USING silt CLUSTER BY (nope)", ["nope"]),
    ("(x INT, flag BOOLEAN) USING silt CLUSTER BY (flag)", ["flag", "statistics"]),
    ("(x INT, y INT) USING silt CLUSTER BY (x, X)", ["twice"]),
])
def test_bad_clustering_is_refused_and_creates_nothing(spark, tmp_path, ddl, words):
    """Refused by Silt, or by Spark's analyzer first (a column it cannot find)."""
    t = str(tmp_path / "t")
    with pytest.raises(Exception) as info:
        spark.sql(f"CREATE TABLE silt.`{t}` {ddl}")
    msg = str(silt.errors.translate(info.value) or info.value)
    assert all(w in msg for w in words), msg
    assert not os.path.exists(os.path.join(t, "_delta_log"))


def test_partitioned_and_clustered_is_refused(spark, tmp_path):
    t = str(tmp_path / "t")
    # Spark 4's parser refuses it first; on Spark 3.5, Silt's catalog
    with pytest.raises(Exception, match="CLUSTER BY and PARTITIONED BY|clustering and partitioning"):
        spark.sql(f"CREATE TABLE silt.`{t}` (x INT, p INT) USING silt PARTITIONED BY (p) CLUSTER BY (x)")
    assert not os.path.exists(os.path.join(t, "_delta_log"))


@needs_spark_4("clusterBy in its DataFrame writers")
def test_partitioned_and_clustered_writer_is_refused(spark, tmp_path):
    t = str(tmp_path / "t")
    df = spark.range(3).selectExpr("id", "id AS p")
    with pytest.raises(Exception) as info:  # refused by Spark's analyzer or by Silt
        df.write.format("silt").partitionBy("p").clusterBy("id").save(t)
    assert "cluster" in str(info.value).lower()
    assert not os.path.exists(os.path.join(t, "_delta_log"))


def test_ctas_and_alter(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS cl_ctas")
    spark.sql("CREATE TABLE cl_ctas USING silt CLUSTER BY (k) AS SELECT id, CAST(id % 10 AS INT) AS k FROM range(100)")
    assert spark.sql("DESCRIBE DETAIL cl_ctas").first()["clusteringColumns"] == ["k"]
    spark.sql("DROP TABLE cl_ctas")

    p = str(tmp_path / "df")
    spark.sql(f"CREATE TABLE silt.`{p}` USING silt CLUSTER BY (k) AS SELECT id, id % 3 AS k FROM range(60)")
    spark.sql(f"ALTER TABLE silt.`{p}` CLUSTER BY (id, k)")
    assert detail(spark, p)["clusteringColumns"] == ["id", "k"]
    spark.sql(f"ALTER TABLE silt.`{p}`   cluster by NONE;")
    assert detail(spark, p)["clusteringColumns"] == []
    history = spark.sql(f"DESCRIBE HISTORY silt.`{p}` LIMIT 2").collect()
    assert [h["operation"] for h in history] == ["CLUSTER BY", "CLUSTER BY"]
    assert history[0]["operationParameters"] == {"oldClusteringColumns": "id,k", "newClusteringColumns": ""}
    assert spark.read.format("silt").load(p).count() == 60  # nothing rewritten

    # a partitioned table cannot be clustered
    q = str(tmp_path / "part")
    spark.range(20).selectExpr("id", "id % 3 AS k").write.format("silt").partitionBy("k").save(q)
    raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"ALTER TABLE silt.`{q}` CLUSTER BY (id)"))


@needs_spark_4("clusterBy in its DataFrame writers")
def test_dataframe_writers_cluster(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS cl_v2")
    spark.range(10).selectExpr("id", "id % 3 AS k").writeTo("cl_v2").using("silt").clusterBy("k").create()
    assert spark.sql("DESCRIBE DETAIL cl_v2").first()["clusteringColumns"] == ["k"]
    spark.sql("DROP TABLE cl_v2")

    p = str(tmp_path / "df")
    df = spark.range(20).selectExpr("id", "id % 3 AS k")
    df.write.format("silt").clusterBy("k").save(p)
    assert detail(spark, p)["clusteringColumns"] == ["k"]
    df.write.format("silt").mode("append").clusterBy("k").save(p)  # the same clustering: fine
    df.write.format("silt").mode("append").save(p)                # none given: fine
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: df.write.format("silt").mode("append").clusterBy("id").save(p))
    assert "ALTER TABLE" in msg and "(k)" in msg
    assert spark.read.format("silt").load(p).count() == 60


def test_replace_table_sets_or_clears_the_clustering(spark, tmp_path):
    """As delta-spark 4.4 does: REPLACE without CLUSTER BY leaves the table clustered by none (the
    feature stays, the domain holds []); REPLACE with CLUSTER BY clusters a table that was not."""
    t = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{t}` (a INT, b INT) USING silt CLUSTER BY (a)")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1, 2)")
    spark.sql(f"REPLACE TABLE silt.`{t}` (a INT, b INT) USING silt")
    assert domain(t, 2) == []
    info = [a["commitInfo"] for a in log(t, 2) if "commitInfo" in a][0]
    assert info["operation"] == "REPLACE TABLE" and json.loads(info["operationParameters"]["clusterBy"]) == []
    d = detail(spark, t)
    assert d["clusteringColumns"] == [] and "clustering" in d["tableFeatures"]
    assert spark.read.format("silt").load(t).count() == 0

    u = str(tmp_path / "u")
    spark.sql(f"CREATE TABLE silt.`{u}` (a INT, b INT) USING silt")
    spark.sql(f"REPLACE TABLE silt.`{u}` USING silt CLUSTER BY (b) AS SELECT 1 AS a, 2 AS b")
    assert domain(u, 1) == [["b"]] and detail(spark, u)["clusteringColumns"] == ["b"]


def test_a_new_definition_keeps_the_clustering_only_while_it_can(spark, tmp_path):
    """As delta-spark 4.4 does (checked by running it): an overwrite with overwriteSchema keeps the
    clustering columns that are all still there, and leaves the table clustered by none when one is
    gone or the table is now partitioned."""
    def clustered(name):
        t = str(tmp_path / name)
        spark.sql(f"CREATE TABLE silt.`{t}` (id BIGINT, k STRING) USING silt CLUSTER BY (k)")
        spark.sql(f"INSERT INTO silt.`{t}` VALUES (1, 'a')")
        return t

    def overwrite(t, select, **kw):
        w = spark.range(3).selectExpr(*select).write.format("silt").mode("overwrite").option("overwriteSchema", "true")
        (w.partitionBy(*kw["partitionBy"]) if "partitionBy" in kw else w).save(t)

    kept = clustered("kept")
    overwrite(kept, ["id", "CAST(id AS STRING) AS k", "id AS extra"])
    assert detail(spark, kept)["clusteringColumns"] == ["k"]
    gone = clustered("gone")
    overwrite(gone, ["id", "CAST(id AS STRING) AS x"])
    assert domain(gone, 2) == [] and detail(spark, gone)["clusteringColumns"] == []
    partitioned = clustered("partitioned")
    overwrite(partitioned, ["id", "CAST(id AS STRING) AS k"], partitionBy=["id"])
    assert domain(partitioned, 2) == [] and detail(spark, partitioned)["partitionColumns"] == ["id"]


@pytest.mark.smoke
def test_optimize_clusters_what_is_new_and_nothing_twice(spark, tmp_path):
    t = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{t}` (x BIGINT, y BIGINT) USING silt CLUSTER BY (x, y)")
    spark.range(0, 40000, 1, 8).selectExpr("id AS x", "(id * 7919) % 40000 AS y").write.format("silt") \
        .mode("append").save(t)
    before = sorted(tuple(r) for r in spark.read.format("silt").load(t).collect())
    spark.conf.set("spark.silt.optimize.maxFileSize", "40k")  # a few files, so that the layout shows
    try:
        m = spark.sql(f"OPTIMIZE silt.`{t}`").first()["metrics"]
    finally:
        spark.conf.unset("spark.silt.optimize.maxFileSize")
    assert m["numFilesRemoved"] == 8 and m["numFilesAdded"] > 1
    stats = m["clusteringStats"]
    assert stats["clusteringColumns"] == ["x", "y"] and stats["numFilesLeftAlone"] == 0
    # y was spread over every file: a 1% range on it read them all; clustered, a share of them
    assert stats["rangeReadFractionBefore"]["y"] == 1.0 and stats["rangeReadFractionAfter"]["y"] < 0.8
    metrics = spark.sql(f"DESCRIBE HISTORY silt.`{t}` LIMIT 1").first()["operationMetrics"]
    assert metrics["rangeReadPermilleBefore.y"] == "1000" and int(metrics["rangeReadPermilleAfter.y"]) < 800
    files = live_files(spark, t)
    version = len(commits(t)) - 1
    adds = [a["add"] for a in log(t, version) if "add" in a]
    assert all(a["clusteringProvider"] == "liquid" and json.loads(a["tags"]["ZCUBE_ZORDER_BY"]) == ["x", "y"]
               and a["dataChange"] is False for a in adds)
    assert len({a["tags"]["ZCUBE_ID"] for a in adds}) == 1
    info = [a["commitInfo"] for a in log(t, version) if "commitInfo" in a][0]
    assert info["operationParameters"]["clusterBy"] == '["x","y"]' and info["operationParameters"]["isFull"] == "false"

    # nothing new: nothing committed
    n = len(commits(t))
    m = spark.sql(f"OPTIMIZE silt.`{t}`").first()["metrics"]
    assert m["numFilesRemoved"] == 0 and len(commits(t)) == n

    # new rows: only their files are clustered; the clustered pass, far larger, is left alone
    spark.range(40000, 40400, 1, 4).selectExpr("id AS x", "id AS y").write.format("silt").mode("append").save(t)
    m = spark.sql(f"OPTIMIZE silt.`{t}`").first()["metrics"]
    assert m["numFilesRemoved"] == 4 and m["totalConsideredFiles"] == len(files) + 4
    assert m["totalFilesSkipped"] == len(files) == m["clusteringStats"]["numFilesLeftAlone"]

    # FULL reclusters everything, after a change of clustering columns too
    spark.sql(f"ALTER TABLE silt.`{t}` CLUSTER BY (y)")
    n = len(commits(t))
    live = len(live_files(spark, t))
    assert spark.sql(f"OPTIMIZE silt.`{t}`").first()["metrics"]["numFilesRemoved"] == live
    spark.sql(f"OPTIMIZE silt.`{t}` FULL")
    assert len(commits(t)) == n + 2
    after = sorted(tuple(r) for r in spark.read.format("silt").load(t).collect())
    assert after == sorted(before + [(i, i) for i in range(40000, 40400)])

    msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"OPTIMIZE silt.`{t}` ZORDER BY (x)"))
    assert "clustered" in msg and "ZORDER BY" in msg
    u = str(tmp_path / "plain")
    spark.range(10).write.format("silt").save(u)
    assert "FULL" in raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"OPTIMIZE silt.`{u}` FULL"))


def test_python_api(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 1000, 1, 4).selectExpr("id AS x", "id % 7 AS y").write.format("silt").save(p)
    t = silt.SiltTable.for_path(spark, p)
    t.cluster_by("x", "y")
    assert t.detail().first()["clusteringColumns"] == ["x", "y"]
    assert t.optimize().execute_compaction().first()["metrics"]["numFilesRemoved"] == 4
    assert t.optimize().execute_compaction().first()["metrics"]["numFilesRemoved"] == 0
    assert t.optimize().execute_full().first()["metrics"]["numFilesRemoved"] >= 1
    t.cluster_by()
    assert t.detail().first()["clusteringColumns"] == []
    assert t.to_df().count() == 1000


def test_zorder_may_use_the_hilbert_curve(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 4000, 1, 8).selectExpr("id AS x", "(id * 7919) % 4000 AS y").write.format("silt").save(p)
    before = sorted(tuple(r) for r in spark.read.format("silt").load(p).collect())
    spark.conf.set("spark.silt.optimize.zorder.curve", "hilbert")
    try:
        m = spark.sql(f"OPTIMIZE silt.`{p}` ZORDER BY (x, y)").first()["metrics"]
    finally:
        spark.conf.unset("spark.silt.optimize.zorder.curve")
    assert m["zOrderStats"]["strategyName"] == "hilbert, curve-aligned"
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).collect()) == before
    m = spark.sql(f"OPTIMIZE silt.`{p}` ZORDER BY (x, y)").first()["metrics"]
    assert m["zOrderStats"]["strategyName"] == "zorder, curve-aligned"
    spark.conf.set("spark.silt.optimize.zorder.curve", "peano")
    try:
        assert "spark.silt.optimize.zorder.curve" in raises_silt(
            silt.UnsupportedOptionException, lambda: spark.sql(f"OPTIMIZE silt.`{p}` ZORDER BY (x, y)").collect())
    finally:
        spark.conf.unset("spark.silt.optimize.zorder.curve")
