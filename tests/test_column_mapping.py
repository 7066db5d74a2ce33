"""Column mapping (name and id modes): tables whose data files name columns by physical names, and
the schema changes it makes possible (RENAME COLUMN, DROP COLUMN) on tables with deletion vectors
and checkpoints, as Delta Lake does them."""
import glob
import json
import os

import pyarrow.parquet as pq
import pytest

import silt
from conftest import files_scanned
from test_writes import raises_silt


def log_lines(path, version):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


def metadata_of(path, version):
    return next(a["metaData"] for a in log_lines(path, version) if "metaData" in a)


def rows(spark, path, version=None, order="id"):
    reader = spark.read.format("silt")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    return [tuple(r) for r in reader.load(path).orderBy(order).collect()]


def parquet_files(path):
    return [f for f in glob.glob(os.path.join(path, "**", "*.parquet"), recursive=True) if "_delta_log" not in f]


@pytest.fixture
def mapped(spark, tmp_path):
    """A name-mode table with deletion vectors, a partition column and a struct: three rows."""
    p = str(tmp_path / "mapped")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, part STRING, s STRUCT<a: INT, b: STRING>, v DOUBLE) USING silt "
              "PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
              "'delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'x', named_struct('a', 1, 'b', 'one'), 1.5), "
              "(2, 'y', named_struct('a', 2, 'b', 'two'), 2.5), (3, 'x', named_struct('a', 3, 'b', 'three'), 3.5)")
    return p


def test_a_name_mode_table_writes_physical_names_everywhere(spark, mapped):
    m = metadata_of(mapped, 0)
    fields = json.loads(m["schemaString"])["fields"]
    physical = {f["name"]: f["metadata"]["delta.columnMapping.physicalName"] for f in fields}
    assert all(v.startswith("col-") for v in physical.values())
    ids = [f["metadata"]["delta.columnMapping.id"] for f in fields]
    nested = [f["metadata"]["delta.columnMapping.id"] for f in fields[2]["type"]["fields"]]
    assert sorted(ids + nested) == list(range(1, 7)) and m["configuration"]["delta.columnMapping.maxColumnId"] == "6"
    protocol = next(a["protocol"] for a in log_lines(mapped, 0) if "protocol" in a)
    assert "columnMapping" in protocol["readerFeatures"] and "columnMapping" in protocol["writerFeatures"]
    adds = [a["add"] for a in log_lines(mapped, 1) if "add" in a]
    assert {tuple(a["partitionValues"]) for a in adds} == {(physical["part"],)}
    stats = json.loads(adds[0]["stats"])
    assert set(stats["minValues"]) == {physical["id"], physical["s"], physical["v"]}
    names = set(pq.read_schema(parquet_files(mapped)[0]).names)
    assert names == {physical["id"], physical["s"], physical["v"]}
    # users see logical names only, without the mapping's metadata
    df = spark.read.format("silt").load(mapped)
    assert df.columns == ["id", "part", "s", "v"] and all(f.metadata == {} for f in df.schema.fields)
    assert rows(spark, mapped) == [(1, "x", (1, "one"), 1.5), (2, "y", (2, "two"), 2.5), (3, "x", (3, "three"), 3.5)]


def test_a_plain_table_gets_no_mapping_metadata_from_a_mapped_schema(spark, mapped, tmp_path):
    p = str(tmp_path / "copy")
    spark.read.format("silt").load(mapped).write.format("silt").save(p)
    assert "delta.columnMapping" not in metadata_of(p, 0)["schemaString"]
    assert rows(spark, p) == rows(spark, mapped)


def test_rename_columns_top_level_partition_and_nested(spark, mapped):
    spark.sql(f"ALTER TABLE silt.`{mapped}` RENAME COLUMN v TO value")
    spark.sql(f"ALTER TABLE silt.`{mapped}` RENAME COLUMN part TO category")
    spark.sql(f"ALTER TABLE silt.`{mapped}` RENAME COLUMN s.a TO alpha")
    df = spark.read.format("silt").load(mapped)
    assert df.columns == ["id", "category", "s", "value"] and df.schema["s"].dataType.fieldNames() == ["alpha", "b"]
    assert rows(spark, mapped) == [(1, "x", (1, "one"), 1.5), (2, "y", (2, "two"), 2.5), (3, "x", (3, "three"), 3.5)]
    assert metadata_of(mapped, 3)["partitionColumns"] == ["category"]
    # filters on renamed columns prune partitions and skip files by the physical statistics
    q = df.where("category = 'x' AND value > 2 AND s.alpha = 3")
    assert [r.id for r in q.collect()] == [3] and files_scanned(spark, q) == 1
    assert files_scanned(spark, df.where("value > 3")) == 1
    # time travel reads each version with its own names
    assert spark.read.format("silt").option("versionAsOf", 1).load(mapped).columns == ["id", "part", "s", "v"]
    # new rows go under the same physical names
    spark.sql(f"INSERT INTO silt.`{mapped}` VALUES (4, 'y', named_struct('alpha', 4, 'b', 'four'), 4.5)")
    assert rows(spark, mapped)[-1] == (4, "y", (4, "four"), 4.5)
    hist = spark.sql(f"DESCRIBE HISTORY silt.`{mapped}`").collect()
    renames = [r["operationParameters"] for r in hist if r["operation"] == "RENAME COLUMN"]
    assert renames[0] == {"oldColumnPath": "s.a", "newColumnPath": "s.alpha"}


def test_drop_then_add_a_column_of_the_same_name_reads_null_for_old_rows(spark, mapped):
    old_physical = {f["name"]: f["metadata"]["delta.columnMapping.physicalName"]
                    for f in json.loads(metadata_of(mapped, 0)["schemaString"])["fields"]}["v"]
    spark.sql(f"ALTER TABLE silt.`{mapped}` DROP COLUMN v")
    assert spark.read.format("silt").load(mapped).columns == ["id", "part", "s"]
    spark.sql(f"ALTER TABLE silt.`{mapped}` ADD COLUMNS (v DOUBLE)")
    fields = json.loads(metadata_of(mapped, 3)["schemaString"])["fields"]
    new = next(f for f in fields if f["name"] == "v")
    assert new["metadata"]["delta.columnMapping.physicalName"] != old_physical
    assert new["metadata"]["delta.columnMapping.id"] == 7
    # the dropped column's data is still in the files, but not readable under the new column
    assert [r[3] for r in rows(spark, mapped)] == [None, None, None]
    spark.sql(f"INSERT INTO silt.`{mapped}` VALUES (4, 'x', named_struct('a', 4, 'b', 'four'), 9.0)")
    assert [r[3] for r in rows(spark, mapped)] == [None, None, None, 9.0]
    assert rows(spark, mapped, version=1)[0] == (1, "x", (1, "one"), 1.5)
    hist = spark.sql(f"DESCRIBE HISTORY silt.`{mapped}`").collect()
    assert [r["operationParameters"] for r in hist if r["operation"] == "DROP COLUMNS"] == [{"columns": '["v"]'}]


def test_dml_optimize_and_checkpoint_on_a_renamed_table(spark, mapped):
    spark.sql(f"ALTER TABLE silt.`{mapped}` RENAME COLUMN v TO value")
    # one file of 20 rows, so that deleting some of them writes a deletion vector
    spark.range(10, 30).coalesce(1).selectExpr("id", "'y' AS part", "named_struct('a', 0, 'b', 'bulk') AS s",
                                               "CAST(id AS DOUBLE) AS value") \
        .write.format("silt").mode("append").save(mapped)
    spark.sql(f"DELETE FROM silt.`{mapped}` WHERE value = 2.5 OR id >= 11")
    assert any(a.get("add", {}).get("deletionVector") for a in log_lines(mapped, 4))
    spark.sql(f"UPDATE silt.`{mapped}` SET value = value * 10 WHERE id = 3")
    spark.createDataFrame([(1, "x", (1, "one"), 100.0), (5, "y", (5, "five"), 5.5)],
                          "id long, part string, s struct<a:int,b:string>, value double").createOrReplaceTempView("cm_src")
    spark.sql(f"MERGE INTO silt.`{mapped}` t USING cm_src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET value = s.value WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"OPTIMIZE silt.`{mapped}` ZORDER BY (value)")
    spark.sql(f"CHECKPOINT silt.`{mapped}`")
    expected = [(1, "x", (1, "one"), 100.0), (3, "x", (3, "three"), 35.0), (5, "y", (5, "five"), 5.5),
                (10, "y", (0, "bulk"), 10.0)]
    assert rows(spark, mapped) == expected
    # a fresh path reads through the checkpoint (its partitionValues_parsed keyed by physical names)
    fresh = mapped + "_fresh"
    os.rename(mapped, fresh)
    assert rows(spark, fresh) == expected
    cp = glob.glob(os.path.join(fresh, "_delta_log", "*.checkpoint.parquet"))
    physical_part = {f["name"]: f["metadata"]["delta.columnMapping.physicalName"]
                     for f in json.loads(metadata_of(fresh, 0)["schemaString"])["fields"]}["part"]
    parsed = pq.read_table(cp[0]).column("add").type
    assert physical_part in [f.name for f in parsed.field("partitionValues_parsed").type]


def test_upgrade_to_name_mode_keeps_old_files_and_allows_rename(spark, tmp_path):
    p = str(tmp_path / "plain")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, v STRING) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a'), (2, 'b')")
    assert json.loads(metadata_of(p, 0)["schemaString"])["fields"][0]["metadata"] == {}
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    fields = json.loads(metadata_of(p, 2)["schemaString"])["fields"]
    # the columns keep their names as physical names, as Delta Lake does: old files still read
    assert [(f["metadata"]["delta.columnMapping.physicalName"], f["metadata"]["delta.columnMapping.id"])
            for f in fields] == [("id", 1), ("v", 2)]
    protocol = next(a["protocol"] for a in log_lines(p, 2) if "protocol" in a)
    assert (protocol["minReaderVersion"], protocol["minWriterVersion"]) == (2, 5)
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN v TO label")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3, 'c')")
    assert rows(spark, p) == [(1, "a"), (2, "b"), (3, "c")]
    assert spark.read.format("silt").load(p).columns == ["id", "label"]


def test_id_mode_writes_parquet_field_ids(spark, tmp_path):
    p = str(tmp_path / "ids")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRUCT<x: INT>) USING silt "
              "TBLPROPERTIES ('delta.columnMapping.mode' = 'id')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, named_struct('x', 10)), (2, named_struct('x', 20))")
    schema = pq.read_schema(parquet_files(p)[0])
    assert schema.field(0).metadata[b"PARQUET:field_id"] == b"1"
    assert schema.field(1).type.field(0).metadata[b"PARQUET:field_id"] == b"3"
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN s.x TO y")
    assert rows(spark, p) == [(1, (10,)), (2, (20,))]
    assert [r.id for r in spark.read.format("silt").load(p).where("s.y > 15").collect()] == [2]


def test_append_with_merge_schema_maps_the_new_columns(spark, mapped):
    spark.createDataFrame([(4, "x", (4, "four"), 4.5, "new")], "id long, part string, s struct<a:int,b:string>, v double, w string") \
        .write.format("silt").mode("append").option("mergeSchema", "true").save(mapped)
    w = next(f for f in json.loads(metadata_of(mapped, 2)["schemaString"])["fields"] if f["name"] == "w")
    assert w["metadata"]["delta.columnMapping.id"] == 7 and w["metadata"]["delta.columnMapping.physicalName"].startswith("col-")
    assert [r[4] for r in rows(spark, mapped)] == [None, None, None, "new"]


def test_what_delta_refuses_is_refused_and_commits_nothing(spark, mapped, tmp_path):
    plain = str(tmp_path / "plain")
    spark.sql(f"CREATE TABLE silt.`{plain}` (id BIGINT, v STRING) USING silt")
    cases = [
        (plain, "ALTER TABLE silt.`{}` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'id')", "from 'none' to 'id'"),
        (mapped, "ALTER TABLE silt.`{}` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'none')", "from 'name' to 'none'"),
        (mapped, "ALTER TABLE silt.`{}` DROP COLUMN part", "part is a partition column"),
        # Spark's analyzer refuses these before Silt sees them, as it does for Delta Lake
        (mapped, "ALTER TABLE silt.`{}` RENAME COLUMN v TO id", "ALREADY_EXISTS"),  # FIELD_… (Spark 4), FIELDS_… (3.5)
        (mapped, "ALTER TABLE silt.`{}` DROP COLUMN nope", "nope"),
    ]
    for path, ddl, message in cases:
        versions = len(glob.glob(os.path.join(path, "_delta_log", "*.json")))
        if message.startswith("from") or "partition" in message:
            msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(ddl.format(path)))
        else:
            with pytest.raises(Exception) as info:
                spark.sql(ddl.format(path))
            msg = str(info.value)
        assert message in msg, msg
        assert len(glob.glob(os.path.join(path, "_delta_log", "*.json"))) == versions
    spark.sql(f"ALTER TABLE silt.`{mapped}` ADD CONSTRAINT positive CHECK (v > 0)")
    for ddl in ("RENAME COLUMN v TO w", "DROP COLUMN v"):
        msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"ALTER TABLE silt.`{mapped}` {ddl}"))
        assert "CHECK constraint positive" in msg
    spark.sql(f"ALTER TABLE silt.`{mapped}` DROP COLUMN IF EXISTS nope")
    assert rows(spark, mapped)[0] == (1, "x", (1, "one"), 1.5)


def test_renames_follow_in_the_stats_columns_property_and_the_catalog(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS cm_named")
    spark.sql(f"CREATE TABLE cm_named (id BIGINT, day INT, v STRING) USING silt PARTITIONED BY (day) "
              f"LOCATION '{tmp_path / 'n'}' TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
              "'delta.dataSkippingStatsColumns' = 'id,v')")
    spark.sql("INSERT INTO cm_named VALUES (1, 1, 'a')")
    spark.sql("ALTER TABLE cm_named RENAME COLUMN v TO label")
    spark.sql("ALTER TABLE cm_named RENAME COLUMN day TO d")
    detail = spark.sql("DESCRIBE DETAIL cm_named").first()
    assert detail["partitionColumns"] == ["d"]
    assert detail["properties"]["delta.dataSkippingStatsColumns"] == "id,label"
    assert spark.table("cm_named").columns == ["id", "d", "label"]
    spark.sql("ALTER TABLE cm_named DROP COLUMN label")
    assert spark.sql("DESCRIBE DETAIL cm_named").first()["properties"]["delta.dataSkippingStatsColumns"] == "id"
    assert [tuple(r) for r in spark.table("cm_named").collect()] == [(1, 1)]
    spark.sql("DROP TABLE cm_named")


def test_replace_columns_reorders_comments_adds_and_with_mapping_drops(spark, tmp_path):
    plain = str(tmp_path / "plain")
    spark.sql(f"CREATE TABLE silt.`{plain}` (id BIGINT, v STRING, w INT) USING silt")
    spark.sql(f"INSERT INTO silt.`{plain}` VALUES (1, 'a', 10)")
    spark.sql(f"ALTER TABLE silt.`{plain}` REPLACE COLUMNS (w INT COMMENT 'weight', id BIGINT, v STRING, extra DOUBLE)")
    df = spark.read.format("silt").load(plain)
    assert df.columns == ["w", "id", "v", "extra"] and df.schema["w"].metadata == {"comment": "weight"}
    assert [tuple(r) for r in df.collect()] == [(10, 1, "a", None)]
    hist = spark.sql(f"DESCRIBE HISTORY silt.`{plain}`").first()
    assert hist["operation"] == "REPLACE COLUMNS"
    assert [c["name"] for c in json.loads(hist["operationParameters"]["columns"])] == ["w", "id", "v", "extra"]
    for ddl, message in [("REPLACE COLUMNS (id BIGINT, v STRING)", "needs column mapping"),
                         ("REPLACE COLUMNS (w BIGINT, id BIGINT, v STRING, extra DOUBLE)", "change type from int to bigint")]:
        msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"ALTER TABLE silt.`{plain}` {ddl}"))
        assert message in msg
    spark.sql(f"ALTER TABLE silt.`{plain}` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    spark.sql(f"ALTER TABLE silt.`{plain}` REPLACE COLUMNS (id BIGINT, v STRING)")
    assert [tuple(r) for r in spark.read.format("silt").load(plain).collect()] == [(1, "a")]


def test_every_schema_change_on_a_table_with_deletion_vectors_and_a_checkpoint(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT NOT NULL, part INT, s STRUCT<a: INT>, v STRING) USING silt "
              "PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', "
              "'delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '3')")
    spark.range(0, 40).coalesce(1).selectExpr("id", "CAST(id % 2 AS INT) AS part", "named_struct('a', CAST(id AS INT)) AS s",
                                              "CONCAT('v', id) AS v").write.format("silt").mode("append").save(p)
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 5 = 0")
    spark.sql(f"CHECKPOINT silt.`{p}`")
    changes = [
        "ADD COLUMNS (note STRING COMMENT 'n', s.b STRING)",
        "ALTER COLUMN v COMMENT 'value'",
        "ALTER COLUMN id DROP NOT NULL",
        "ALTER COLUMN note FIRST",
        "RENAME COLUMN v TO label",
        "RENAME COLUMN s.a TO alpha",
        "DROP COLUMN note",
        "REPLACE COLUMNS (label STRING, id BIGINT, part INT, s STRUCT<alpha: INT, b: STRING>)",
    ]
    expected = sorted((i, f"v{i}") for i in range(40) if i % 5)
    for i, change in enumerate(changes):
        spark.sql(f"ALTER TABLE silt.`{p}` {change}")
        # read from a fresh path, through the checkpoints the changes wrote (interval 3)
        fresh = str(tmp_path / f"fresh{i}")
        import shutil
        shutil.copytree(p, fresh)
        df = spark.read.format("silt").load(fresh)
        label = "label" if "label" in df.columns else "v"
        assert sorted((r.id, r[label]) for r in df.collect()) == expected, change
        # partition pruning and skipping by statistics, through the mapping
        assert files_scanned(spark, df.where("part = 1")) == 1 and files_scanned(spark, df.where("id > 100")) == 0
    assert glob.glob(os.path.join(p, "_delta_log", "*.checkpoint.parquet"))
    df = spark.read.format("silt").load(p)
    assert df.columns == ["label", "id", "part", "s"] and df.schema["s"].dataType.fieldNames() == ["alpha", "b"]
    assert df.where("id = 7").first()["s"] == (7, None)


def test_describe_files_shows_partition_values_by_column_name(spark, mapped):
    spark.sql(f"ALTER TABLE silt.`{mapped}` RENAME COLUMN part TO category")
    values = {tuple(r["partitionValues"].items()) for r in spark.sql(f"DESCRIBE FILES silt.`{mapped}`").collect()}
    assert values == {(("category", "x"),), (("category", "y"),)}


def test_a_v2_checkpoint_of_a_mapped_table_reads_after_a_rename(spark, tmp_path):
    p = str(tmp_path / "v2")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, part INT, v STRING) USING silt PARTITIONED BY (part) TBLPROPERTIES "
              "('delta.columnMapping.mode' = 'name', 'delta.checkpointPolicy' = 'v2', 'delta.enableDeletionVectors' = 'true')")
    spark.range(0, 30).coalesce(1).selectExpr("id", "CAST(id % 3 AS INT) AS part", "CONCAT('v', id) AS v") \
        .write.format("silt").mode("append").save(p)
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN part TO bucket")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id % 4 = 0")
    spark.sql(f"CHECKPOINT silt.`{p}`")
    assert glob.glob(os.path.join(p, "_delta_log", "_sidecars", "*")) or \
        glob.glob(os.path.join(p, "_delta_log", "*.checkpoint.*.parquet"))
    fresh = str(tmp_path / "fresh")
    os.rename(p, fresh)
    df = spark.read.format("silt").load(fresh)
    assert df.columns == ["id", "bucket", "v"]
    assert sorted(r.id for r in df.collect()) == [i for i in range(30) if i % 4]
    assert files_scanned(spark, df.where("bucket = 1")) == 1
