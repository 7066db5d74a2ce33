"""The table utility commands: CONVERT TO DELTA, GENERATE symlink_format_manifest, SHALLOW CLONE,
VACUUM LITE and VACUUM USING INVENTORY, as a user runs them (SQL and the Python APIs). Other engines reading their results
are in test_interop_utilities.py; VACUUM LITE's file-system calls are counted in VacuumLiteSpec."""
import json
import os
import shutil
from pathlib import Path
from urllib.parse import unquote

import pytest

from conftest import files_scanned
from silt import SiltTable
from silt.errors import (CannotVacuumLiteException, ConvertToDeltaException, InvalidTableOperationException,
                         ManifestWithDeletionVectorsException, UnsupportedOptionException, VersionNotFoundException,
                         reraise)

PARTITION_VALUES = "CASE id % 6 WHEN 0 THEN NULL WHEN 1 THEN 'a b' WHEN 2 THEN 'x/y' WHEN 3 THEN 'c=d' " \
                   "WHEN 4 THEN 'e%f' ELSE 'ü' END"


def parquet_rows_query():
    return (f"SELECT id, concat('v', id) AS v, CAST(id AS DOUBLE) / 2 AS d, "
            f"CASE WHEN id % 5 = 0 THEN NULL ELSE CAST(id % 3 AS INT) END AS p, {PARTITION_VALUES} AS s "
            "FROM range(60)")


def write_parquet_folder(spark, path):
    """A partitioned Parquet folder written by plain Spark: nulls and special characters in partition values."""
    spark.sql(parquet_rows_query()).repartition(2).write.partitionBy("p", "s").parquet(str(path))


def run(spark, statement):
    """Runs a statement; a Silt error is raised as its Python class."""
    return reraise(lambda: spark.sql(statement).collect())


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def history(spark, path):
    return spark.sql(f"DESCRIBE HISTORY silt.`{path}`").orderBy("version").collect()


def log_actions(path, version):
    with open(os.path.join(str(path), "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def data_files_on_disk(path):
    return sorted(str(p.relative_to(path)) for p in Path(path).rglob("*.parquet")
                  if "_delta_log" not in p.parts and not p.name.startswith("."))


# ------------------------------------------------------------------ CONVERT TO DELTA

@pytest.mark.smoke
def test_convert_partitioned_parquet_folder(spark, tmp_path):
    folder = tmp_path / "pq"
    write_parquet_folder(spark, folder)
    expected = rows(spark.read.parquet(str(folder)).select("id", "v", "d", "p", "s"))
    before = {f: os.path.getmtime(folder / f) for f in data_files_on_disk(folder)}

    assert spark.sql(f"CONVERT TO DELTA parquet.`{folder}` PARTITIONED BY (p INT, s STRING)").collect() == []

    table = spark.read.format("silt").load(str(folder))
    assert table.columns == ["id", "v", "d", "p", "s"]
    assert rows(table) == expected
    # nothing moved or rewritten: the same files, untouched
    assert {f: os.path.getmtime(folder / f) for f in data_files_on_disk(folder)} == before
    actions = log_actions(folder, 0)
    adds = [a["add"] for a in actions if "add" in a]
    assert sorted(unquote(a["path"]) for a in adds) == sorted(before)
    assert {a["partitionValues"]["s"] for a in adds} == {None, "a b", "x/y", "c=d", "e%f", "ü"}
    assert None in {a["partitionValues"]["p"] for a in adds}
    stats = json.loads(adds[0]["stats"])
    assert stats["numRecords"] > 0 and "id" in stats["minValues"] and "v" in stats["maxValues"]
    assert sum(json.loads(a["stats"])["numRecords"] for a in adds) == 60
    # statistics from the footers skip files
    assert files_scanned(spark, table.where("id = 7")) < len(adds)
    assert rows(table.where("id = 7")) == [r for r in expected if r[0] == 7]

    (h,) = history(spark, folder)
    assert h["operation"] == "CONVERT"
    assert h["operationParameters"]["numFiles"] == str(len(adds))
    assert h["operationParameters"]["partitionedBy"] == '["p","s"]'
    assert h["operationParameters"]["collectStats"] == "true"
    assert h["operationMetrics"]["numConvertedFiles"] == str(len(adds))

    # converting again does nothing
    spark.sql(f"CONVERT TO DELTA parquet.`{folder}` PARTITIONED BY (p INT, s STRING)")
    assert len(history(spark, folder)) == 1
    # and the table takes writes like any other
    spark.sql(f"DELETE FROM silt.`{folder}` WHERE s IS NULL")
    assert rows(spark.read.format("silt").load(str(folder))) == [r for r in expected if r[4] is not None]


def test_convert_no_statistics_and_unpartitioned(spark, tmp_path):
    folder = tmp_path / "flat"
    spark.range(10).selectExpr("id", "CAST(id AS STRING) AS s").write.parquet(str(folder))
    spark.sql(f"CONVERT TO DELTA parquet.`{folder}` NO STATISTICS")
    adds = [a["add"] for a in log_actions(folder, 0) if "add" in a]
    assert adds and all("stats" not in a or a["stats"] is None for a in adds)
    assert history(spark, folder)[0]["operationParameters"]["collectStats"] == "false"
    assert rows(spark.read.format("silt").load(str(folder))) == [(i, str(i)) for i in range(10)]


def test_convert_refuses_what_it_cannot_convert(spark, tmp_path):
    part = tmp_path / "part"
    write_parquet_folder(spark, part)
    with pytest.raises(ConvertToDeltaException, match=r"PARTITIONED BY \(p <type>, s <type>\)"):
        run(spark, f"CONVERT TO DELTA parquet.`{part}`")
    with pytest.raises(ConvertToDeltaException, match="not a date"):
        run(spark, f"CONVERT TO DELTA parquet.`{part}` PARTITIONED BY (p DATE, s STRING)")
    assert not (part / "_delta_log").exists() or not any((part / "_delta_log").iterdir())

    mixed = tmp_path / "mixed"
    spark.range(5).write.parquet(str(mixed))
    (mixed / "notes.csv").write_text("a,b\n1,2\n")
    with pytest.raises(ConvertToDeltaException, match="notes.csv"):
        run(spark, f"CONVERT TO DELTA parquet.`{mixed}`")

    clash = tmp_path / "clash"
    spark.range(5).selectExpr("CAST(id AS INT) AS x").write.parquet(str(clash / "a"))
    spark.range(5).selectExpr("CAST(id AS STRING) AS x").write.parquet(str(clash / "b"))
    for f in (clash / "b").glob("*.parquet"):
        f.rename(clash / "a" / ("b-" + f.name))
    with pytest.raises(ConvertToDeltaException, match=r"column x is (int|string) in .*part.* but (string|int) in"):
        run(spark, f"CONVERT TO DELTA parquet.`{clash / 'a'}`")

    union = tmp_path / "union"
    spark.range(3).selectExpr("id", "id AS a").write.parquet(str(union))
    spark.range(3, 5).selectExpr("id", "CAST(id AS STRING) AS b").write.mode("append").parquet(str(union))
    spark.sql(f"CONVERT TO DELTA parquet.`{union}`")
    assert rows(spark.read.format("silt").load(str(union)).select("id", "a", "b")) == \
        [(0, 0, None), (1, 1, None), (2, 2, None), (3, None, "3"), (4, None, "4")]

    with pytest.raises(ConvertToDeltaException, match="not iceberg"):
        run(spark, f"CONVERT TO DELTA iceberg.`{union}`")


def test_convert_catalog_parquet_table(spark):
    spark.sql("DROP TABLE IF EXISTS conv_pq")
    spark.sql("CREATE TABLE conv_pq (id BIGINT, p INT) USING parquet PARTITIONED BY (p)")
    spark.sql("INSERT INTO conv_pq VALUES (1, 1), (2, 1), (3, 2)")
    with pytest.raises(ConvertToDeltaException, match="the catalog partitions the table by"):
        run(spark, "CONVERT TO DELTA conv_pq PARTITIONED BY (q INT)")
    spark.sql("CONVERT TO DELTA conv_pq")
    provider = [r for r in spark.sql("DESCRIBE TABLE EXTENDED conv_pq").collect() if r[0] == "Provider"][0][1]
    assert provider == "silt"
    assert rows(spark.table("conv_pq")) == [(1, 1), (2, 1), (3, 2)]
    spark.sql("DELETE FROM conv_pq WHERE id = 2")
    assert rows(spark.table("conv_pq")) == [(1, 1), (3, 2)]
    assert spark.sql("DESCRIBE HISTORY conv_pq").orderBy("version").collect()[0]["operationParameters"][
        "catalogTable"].endswith("conv_pq")
    spark.sql("DROP TABLE conv_pq")


# ------------------------------------------------------------------ GENERATE symlink_format_manifest

def manifests(path):
    """{partition folder: [listed files]} of the table's symlink manifests."""
    root = Path(path) / "_symlink_format_manifest"
    return {str(m.parent.relative_to(root)): m.read_text().splitlines() for m in root.rglob("manifest")}


def live_files(spark, path):
    return sorted(r["path"] for r in spark.sql(f"DESCRIBE FILES silt.`{path}`").collect())


def manifest_rows(path):
    """The rows a manifest-only reader sees: DuckDB over the listed files, partition values from the folders."""
    import duckdb
    listed = [f for fs in manifests(path).values() for f in fs]
    if not listed:
        return []
    local = [f[len("file:"):] for f in listed]
    con = duckdb.connect()
    try:
        got = con.execute("SELECT id FROM read_parquet(?)", [local]).fetchall()
    finally:
        con.close()
    return sorted(r[0] for r in got)


def check_manifests(spark, path):
    listed = sorted(f for fs in manifests(path).values() for f in fs)
    assert listed == sorted(f"file:{path}/{unquote(f)}" for f in live_files(spark, path))
    assert manifest_rows(path) == sorted(r["id"] for r in spark.read.format("silt").load(str(path)).collect())


@pytest.mark.smoke
def test_generate_manifests_list_the_live_files(spark, tmp_path):
    t = tmp_path / "man"
    spark.sql(f"SELECT id, CAST(id % 3 AS INT) AS p, {PARTITION_VALUES} AS s FROM range(40)") \
        .write.format("silt").partitionBy("p", "s").save(str(t))
    spark.sql(f"GENERATE symlink_format_manifest FOR TABLE silt.`{t}`")
    dirs = set(manifests(t))
    assert "p=2/s=x%2Fy" in dirs and "p=0/s=__HIVE_DEFAULT_PARTITION__" in dirs and "p=1/s=a b" in dirs
    check_manifests(spark, t)
    h = history(spark, t)[-1]
    assert h["operation"] == "GENERATE" and h["operationParameters"]["mode"] == "symlink_format_manifest"
    assert int(h["operationMetrics"]["numManifestsWritten"]) == len(dirs)

    # a partition emptied: its manifest goes at the next GENERATE
    spark.sql(f"DELETE FROM silt.`{t}` WHERE s = 'x/y'")
    spark.sql(f"GENERATE symlink_format_manifest FOR TABLE silt.`{t}`")
    assert not any("x%2Fy" in d for d in manifests(t))
    check_manifests(spark, t)

    with pytest.raises(UnsupportedOptionException, match="foo"):
        run(spark, f"GENERATE foo FOR TABLE silt.`{t}`")


def test_generate_is_refused_with_deletion_vectors(spark, tmp_path):
    t = tmp_path / "dv"
    spark.range(20).selectExpr("id", "id % 2 AS p").write.format("silt").partitionBy("p") \
        .option("delta.enableDeletionVectors", "true").save(str(t))
    spark.sql(f"DELETE FROM silt.`{t}` WHERE id = 3")
    with pytest.raises(ManifestWithDeletionVectorsException, match=r"REORG TABLE .* APPLY \(PURGE\)"):
        run(spark, f"GENERATE symlink_format_manifest FOR TABLE silt.`{t}`")
    with pytest.raises(ManifestWithDeletionVectorsException):
        run(spark, f"ALTER TABLE silt.`{t}` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'false', "
                  "'delta.compatibility.symlinkFormatManifest.enabled' = 'true')")
    spark.sql(f"REORG TABLE silt.`{t}` APPLY (PURGE)")
    spark.sql(f"GENERATE symlink_format_manifest FOR TABLE silt.`{t}`")
    check_manifests(spark, t)


def test_manifests_kept_up_to_date(spark, tmp_path):
    t = tmp_path / "auto"
    spark.range(10).selectExpr("id", "CAST(id % 2 AS INT) AS p").write.format("silt").partitionBy("p").save(str(t))
    spark.sql(f"ALTER TABLE silt.`{t}` SET TBLPROPERTIES ('delta.compatibility.symlinkFormatManifest.enabled' = 'true')")
    check_manifests(spark, t)                              # written when the property is set
    spark.range(10, 20).selectExpr("id", "CAST(id % 3 AS INT) AS p").write.format("silt").mode("append").save(str(t))
    assert set(manifests(t)) == {"p=0", "p=1", "p=2"}
    check_manifests(spark, t)
    spark.sql(f"OPTIMIZE silt.`{t}`")
    check_manifests(spark, t)
    spark.sql(f"DELETE FROM silt.`{t}` WHERE p = 2")       # copy-on-write: no DVs on such a table
    assert set(manifests(t)) == {"p=0", "p=1"}
    check_manifests(spark, t)
    with pytest.raises(InvalidTableOperationException, match="cannot both be true"):
        run(spark, f"ALTER TABLE silt.`{t}` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")


# ------------------------------------------------------------------ SHALLOW CLONE

@pytest.mark.smoke
def test_shallow_clone_lives_its_own_life(spark, tmp_path):
    src, clone = tmp_path / "src", tmp_path / "clone"
    spark.range(100).selectExpr("id", "CAST(id % 2 AS INT) AS p").repartition(2).write.format("silt") \
        .partitionBy("p").option("delta.enableDeletionVectors", "true").save(str(src))          # v0
    spark.sql(f"DELETE FROM silt.`{src}` WHERE id % 10 = 3")                                     # v1: DVs
    spark.range(100, 110).selectExpr("id", "CAST(id % 2 AS INT) AS p").write.format("silt").mode("append").save(str(src))
    source_files = set(data_files_on_disk(src))

    out = spark.sql(f"CREATE TABLE silt.`{clone}` SHALLOW CLONE silt.`{src}` VERSION AS OF 1").collect()
    assert out[0]["num_copied_files"] == 0 and out[0]["source_num_of_files"] > 0
    v1 = [i for i in range(100) if i % 10 != 3]
    read = lambda p: sorted(r["id"] for r in spark.read.format("silt").load(str(p)).collect())
    assert read(clone) == v1
    adds = [a["add"] for a in log_actions(clone, 0) if "add" in a]
    assert all(a["path"].startswith("file:") for a in adds)
    assert any(a.get("deletionVector", {}).get("storageType") == "p" for a in adds)
    (h,) = history(spark, clone)
    assert h["operation"] == "CLONE" and h["operationParameters"]["sourceVersion"] == "1"
    assert h["operationParameters"]["isShallow"] == "true"
    assert data_files_on_disk(clone) == []                                                       # nothing copied

    # both sides change on their own
    spark.sql(f"DELETE FROM silt.`{clone}` WHERE id < 20")
    spark.range(500, 505).selectExpr("id", "CAST(id % 2 AS INT) AS p").write.format("silt").mode("append").save(str(clone))
    spark.sql(f"OPTIMIZE silt.`{clone}`")
    spark.sql(f"DELETE FROM silt.`{src}` WHERE id >= 90")
    spark.sql(f"OPTIMIZE silt.`{src}`")
    clone_rows = sorted([i for i in v1 if i >= 20] + list(range(500, 505)))
    source_rows = [i for i in range(90) if i % 10 != 3]
    assert read(clone) == clone_rows and read(src) == source_rows

    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM silt.`{clone}` RETAIN 0 HOURS")
        assert set(data_files_on_disk(src)) >= source_files                                      # the source's files stay
        assert read(src) == source_rows
        spark.sql(f"VACUUM silt.`{src}` RETAIN 0 HOURS")
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    assert read(clone) == clone_rows and read(src) == source_rows


def test_clone_to_catalog_names(spark, tmp_path):
    src = tmp_path / "src"
    spark.range(10).write.format("silt").save(str(src))
    spark.range(10, 15).write.format("silt").mode("append").save(str(src))
    spark.sql("DROP TABLE IF EXISTS cl_a")
    spark.sql(f"CREATE TABLE cl_a SHALLOW CLONE silt.`{src}` VERSION AS OF 0 "
              "TBLPROPERTIES ('delta.logRetentionDuration' = 'interval 60 days', 'team' = 'data')")
    assert spark.table("cl_a").count() == 10
    detail = spark.sql("DESCRIBE DETAIL cl_a").collect()[0]
    assert detail["properties"]["delta.logRetentionDuration"] == "interval 60 days" and detail["properties"]["team"] == "data"
    # an existing name: refused, skipped with IF NOT EXISTS, replaced with OR REPLACE (history kept)
    with pytest.raises(Exception, match="already exists"):
        run(spark, f"CREATE TABLE cl_a SHALLOW CLONE silt.`{src}`")
    spark.sql(f"CREATE TABLE IF NOT EXISTS cl_a SHALLOW CLONE silt.`{src}`")
    assert spark.table("cl_a").count() == 10
    spark.sql(f"CREATE OR REPLACE TABLE cl_a SHALLOW CLONE silt.`{src}`")
    assert spark.table("cl_a").count() == 15
    assert [r["operation"] for r in spark.sql("DESCRIBE HISTORY cl_a").orderBy("version").collect()] == ["CLONE", "CLONE"]
    # LOCATION makes an external table there
    loc = tmp_path / "ext"
    spark.sql("DROP TABLE IF EXISTS cl_b")
    with pytest.raises(VersionNotFoundException, match="after the latest commit"):
        run(spark, f"CREATE TABLE cl_b SHALLOW CLONE silt.`{src}` TIMESTAMP AS OF '2999-01-01' LOCATION '{loc}'")
    latest = spark.sql(f"DESCRIBE HISTORY silt.`{src}` LIMIT 1").first()["timestamp"]
    spark.sql(f"CREATE TABLE cl_b SHALLOW CLONE silt.`{src}` TIMESTAMP AS OF '{latest}' LOCATION '{loc}'")
    assert (loc / "_delta_log").exists() and spark.table("cl_b").count() == 15
    with pytest.raises(UnsupportedOptionException, match="DEEP CLONE"):
        run(spark, f"CREATE TABLE cl_c DEEP CLONE silt.`{src}`")
    with pytest.raises(UnsupportedOptionException, match="CONVERT TO DELTA"):
        run(spark, f"CREATE TABLE cl_c SHALLOW CLONE parquet.`{src}`")
    spark.sql("DROP TABLE cl_a")
    spark.sql("DROP TABLE cl_b")
    assert spark.read.format("silt").load(str(src)).count() == 15                                # source untouched


# ------------------------------------------------------------------ VACUUM LITE

@pytest.mark.smoke
def test_vacuum_lite(spark, tmp_path):
    t = tmp_path / "vac"
    for i in range(4):
        spark.range(i * 10, i * 10 + 10, numPartitions=1).write.format("silt").mode("append").save(str(t))
    spark.sql(f"DELETE FROM silt.`{t}` WHERE id < 20")            # removes the first two files
    orphan = t / "part-orphan.parquet"
    shutil.copyfile(next(t.glob("*.parquet")), orphan)
    os.utime(orphan, (1, 1))
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        dry = spark.sql(f"VACUUM silt.`{t}` LITE RETAIN 0 HOURS DRY RUN").collect()
        assert len(dry) == 2
        spark.sql(f"VACUUM silt.`{t}` RETAIN 0 HOURS LITE")       # the modifiers in any order
        assert all(not os.path.exists(r["path"][len("file:"):]) for r in dry)
        assert orphan.exists()                                     # LITE reads the log only
        start, end = history(spark, t)[-2:]
        assert start["operation"] == "VACUUM START" and start["operationParameters"]["vacuumType"] == "LITE"
        assert start["operationMetrics"]["numFilesToDelete"] == "2"
        assert end["operationMetrics"]["numDeletedFiles"] == "2"
        info = json.loads((t / "_delta_log" / "_last_vacuum_info").read_text())
        assert info["latestCommitVersionOutsideOfRetentionWindow"] >= 4
        versions = len(history(spark, t))
        spark.conf.set("spark.databricks.delta.vacuum.logging.enabled", "false")  # Delta Lake's name for it
        try:
            spark.sql(f"VACUUM silt.`{t}` FULL RETAIN 0 HOURS")
        finally:
            spark.conf.unset("spark.databricks.delta.vacuum.logging.enabled")
        assert not orphan.exists()
        assert len(history(spark, t)) == versions                  # deleted, and not recorded
        with pytest.raises(InvalidTableOperationException, match="RETAIN once"):
            run(spark, f"VACUUM silt.`{t}` RETAIN 0 HOURS LITE RETAIN 1 HOURS")
        SiltTable.for_path(spark, str(t)).vacuum(0, lite=True)
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    assert sorted(r["id"] for r in spark.read.format("silt").load(str(t)).collect()) == list(range(20, 40))


# ------------------------------------------------------------------ VACUUM USING INVENTORY

def test_vacuum_using_an_inventory_instead_of_a_listing(spark, tmp_path):
    t = tmp_path / "inv"
    spark.range(10).write.format("silt").save(str(t))
    spark.range(10, 20).write.format("silt").mode("overwrite").save(str(t))  # the first files are removed
    live = {unquote(Path(r[0]).name) for r in spark.sql(f"SELECT input_file_name() FROM silt.`{t}`").collect()}
    (t / "_hidden").mkdir()
    for name in ("orphan.parquet", "_hidden/h.parquet", "listed-not-present.parquet"):
        (t / name).write_bytes(b"x")
    (t / "listed-not-present.parquet").unlink()
    unlisted = t / "unlisted.parquet"
    unlisted.write_bytes(b"x")
    for f in [*t.glob("*.parquet"), t / "_hidden" / "h.parquet"]:
        os.utime(f, (1, 1))
    inventory = [("file:" + str(f), f.stat().st_size if f.exists() else 1, f.is_dir(), 1000)
                 for f in [*t.iterdir(), t / "_hidden" / "h.parquet", t / "listed-not-present.parquet"] if f != unlisted]
    inventory.append(("file:/elsewhere/x.parquet", 1, False, 1000))
    spark.createDataFrame(inventory, "path string, length long, isDir boolean, modificationTime long") \
        .selectExpr("*", "'extra columns are ignored' AS note").createOrReplaceTempView("silt_inventory")
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        dry = run(spark, f"VACUUM silt.`{t}` USING INVENTORY silt_inventory RETAIN 0 HOURS DRY RUN")
        names = sorted(Path(r.path).name for r in dry)
        # the overwritten files and the orphan; not the live, hidden, unlisted nor outside files
        assert "orphan.parquet" in names and len(names) == 4 and not set(names) & live
        run(spark, f"VACUUM silt.`{t}` RETAIN 0 HOURS USING INVENTORY (SELECT * FROM silt_inventory)")
        assert not (t / "orphan.parquet").exists() and unlisted.exists() and (t / "_hidden" / "h.parquet").exists()
        assert sorted(r.id for r in spark.read.format("silt").load(str(t)).collect()) == list(range(10, 20))
        with pytest.raises(InvalidTableOperationException, match="LITE") as e:
            run(spark, f"VACUUM silt.`{t}` LITE USING INVENTORY silt_inventory")
        with pytest.raises(InvalidTableOperationException, match="length:int.*needs.*length:bigint") as e:
            run(spark, f"VACUUM silt.`{t}` USING INVENTORY (SELECT path, CAST(length AS INT) AS length, isDir, "
                       "modificationTime FROM silt_inventory)")
        assert (e.value.getCondition(), e.value.getSqlState()) == ("DELTA_INVALID_INVENTORY_SCHEMA", "42000")
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")


# ------------------------------------------------------------------ the Python APIs

def test_python_apis(spark, tmp_path):
    from silt.delta.tables import DeltaTable

    folder = tmp_path / "pq"
    spark.range(6).selectExpr("id", "CAST(id % 2 AS INT) AS p").write.partitionBy("p").parquet(str(folder))
    dt = DeltaTable.convertToDelta(spark, f"parquet.`{folder}`", "p INT")
    assert sorted(r["id"] for r in dt.toDF().collect()) == list(range(6))

    clone = dt.cloneAtVersion(0, str(tmp_path / "clone"), isShallow=True, properties={"team": "data"})
    assert clone.toDF().count() == 6 and clone.detail().collect()[0]["properties"]["team"] == "data"
    with pytest.raises(UnsupportedOptionException, match="DEEP CLONE"):
        dt.clone(str(tmp_path / "deep"), isShallow=False)
    again = dt.clone(str(tmp_path / "clone"), isShallow=True, replace=True)
    assert [r["operation"] for r in again.history().collect()] == ["CLONE", "CLONE"]

    dt.generate("symlink_format_manifest")
    assert set(manifests(folder)) == {"p=0", "p=1"}

    flat = tmp_path / "flat"
    spark.range(3).write.parquet(str(flat))
    t = SiltTable.convert_to_delta(spark, str(flat), collect_stats=False)
    assert t.to_df().count() == 3
    assert t.clone("utilities_api_clone", version=0).to_df().count() == 3
    spark.sql("DROP TABLE utilities_api_clone")
