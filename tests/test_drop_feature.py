"""ALTER TABLE … DROP FEATURE (and DeltaTable.dropFeatureSupport): the feature turned off, its traces
cleaned up, the protocol lowered in a commit of its own; checkpointProtection and a checkpoint at
the drop for features readers had to understand; refusals name the feature and why."""
from pathlib import Path

import pytest

import silt
from silt.delta.tables import DeltaTable
from test_row_tracking import log_actions
from test_writes import raises_silt
from conftest import needs_spark_4


commits = log_actions  # every commit's actions, in order


def protocol(path):
    return [a["protocol"] for c in commits(path) for a in c if "protocol" in a][-1]


def operations(path):
    return [next(a["commitInfo"]["operation"] for a in c if "commitInfo" in a) for c in commits(path)]


def rows(spark, p, version=None):
    r = spark.read.format("silt")
    if version is not None:
        r = r.option("versionAsOf", version)
    return sorted(tuple(x) for x in r.load(p).collect())


@pytest.mark.smoke
def test_dropping_deletion_vectors_purges_them_and_protects_the_history(spark, tmp_path):
    p = str(tmp_path / "dv")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 2")
    before = rows(spark, p)
    spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE deletionVectors")
    assert operations(p)[-3:] == ["UNSET TBLPROPERTIES", "REORG", "DROP FEATURE"]
    drop_version = len(commits(p)) - 1
    proto = protocol(p)
    assert "deletionVectors" not in proto.get("readerFeatures", []) + proto.get("writerFeatures", [])
    assert "checkpointProtection" in proto["writerFeatures"] and proto["minReaderVersion"] == 1
    detail = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
    assert detail.properties["delta.requireCheckpointProtectionBeforeVersion"] == str(drop_version)
    assert "delta.enableDeletionVectors" not in detail.properties
    assert Path(p, "_delta_log", f"{drop_version:020d}.checkpoint.parquet").exists()
    assert all("deletionVector" not in a.get("add", {}) for c in commits(p)[-2:] for a in c)
    assert rows(spark, p) == before and rows(spark, p, version=2) == before  # history still reads
    # deletes now rewrite files instead of writing deletion vectors
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 3")
    assert operations(p)[-1] == "DELETE" and all("deletionVector" not in a.get("add", {}) for a in commits(p)[-1])
    assert rows(spark, p) == [(1, "a")]


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_dropping_writer_features_lowers_the_protocol(spark, tmp_path):
    p = str(tmp_path / "ict")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableInCommitTimestamps = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    DeltaTable.forPath(spark, p).dropFeatureSupport("inCommitTimestamp")
    assert protocol(p) == {"minReaderVersion": 1, "minWriterVersion": 2}
    assert spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first().properties["delta.enableInCommitTimestamps"] == "false"
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2)")
    assert "inCommitTimestamp" not in next(a["commitInfo"] for a in commits(p)[-1] if "commitInfo" in a)

    q = str(tmp_path / "cc")
    spark.sql(f"CREATE TABLE silt.`{q}` (id INT) USING silt")
    spark.sql(f"ALTER TABLE silt.`{q}` ADD CONSTRAINT pos CHECK (id > 0)")
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{q}` DROP FEATURE checkConstraints"))
    assert "pos" in msg
    spark.sql(f"ALTER TABLE silt.`{q}` DROP CONSTRAINT pos")
    spark.sql(f"ALTER TABLE silt.`{q}` DROP FEATURE checkConstraints")
    assert protocol(q) == {"minReaderVersion": 1, "minWriterVersion": 2}


@pytest.mark.smoke
@needs_spark_4("Parquet reader that widens int to bigint")
def test_dropping_type_widening_rewrites_the_files_written_before_a_change(spark, tmp_path):
    import pyarrow.parquet as pq
    p = str(tmp_path / "tw")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, part STRING, s STRUCT<x: SMALLINT>) USING silt PARTITIONED BY (part) "
              "TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a', named_struct('x', 1S)), (2, 'b', named_struct('x', 2S))")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN id TYPE BIGINT")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3000000000, 'b', named_struct('x', 3S))")  # written as BIGINT already
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN s.x TYPE INT")
    before = rows(spark, p)
    DeltaTable.forPath(spark, p).dropFeatureSupport("typeWidening")
    assert operations(p)[-3:] == ["UNSET TBLPROPERTIES", "REORG", "DROP FEATURE"]
    reorg = [a for a in commits(p)[-2] if "add" in a or "remove" in a]
    assert len([a for a in reorg if "remove" in a]) == 3  # every file held a narrower id or s.x
    proto = protocol(p)
    assert "typeWidening" not in proto.get("readerFeatures", []) + proto.get("writerFeatures", [])
    assert "checkpointProtection" in proto["writerFeatures"]
    metadata = [a["metaData"] for a in commits(p)[-1] if "metaData" in a][0]
    assert "delta.typeChanges" not in metadata["schemaString"]
    assert "delta.enableTypeWidening" not in metadata["configuration"]
    for a in reorg:
        if "add" in a:
            schema = pq.read_schema(str(Path(p, a["add"]["path"])))
            assert str(schema.field("id").type) == "int64" and str(schema.field("s").type.field("x").type) == "int32"
    assert rows(spark, p) == before and rows(spark, p, version=1) == [(1, "a", (1,)), (2, "b", (2,))]
    # no file needs rewriting any more: dropping again finds nothing to do but the feature gone
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE typeWidening"))
    assert "does not have it" in msg


@pytest.mark.smoke
def test_dropping_column_mapping_rewrites_every_file_under_the_logical_names(spark, tmp_path):
    import pyarrow.parquet as pq
    p = str(tmp_path / "cm")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, part STRING, note STRING, gone INT) USING silt PARTITIONED BY (part) "
              "TBLPROPERTIES (delta.columnMapping.mode = 'name', delta.enableDeletionVectors = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a', 'x', 0), (2, 'b', 'y', 0), (3, 'b', 'z', 0)")
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN note TO remark")
    spark.sql(f"ALTER TABLE silt.`{p}` DROP COLUMN gone")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 3")
    before, mapped_version = rows(spark, p), len(commits(p)) - 1
    spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE columnMapping")
    assert operations(p)[-2:] == ["REMOVE COLUMN MAPPING", "DROP FEATURE"]
    proto = protocol(p)
    assert "columnMapping" not in proto.get("readerFeatures", []) + proto.get("writerFeatures", [])
    assert "checkpointProtection" in proto["writerFeatures"]
    metadata = [a["metaData"] for c in commits(p) for a in c if "metaData" in a][-1]
    assert "delta.columnMapping" not in metadata["schemaString"]
    assert not any(k.startswith("delta.columnMapping") for k in metadata["configuration"])
    adds = [a["add"] for a in commits(p)[-2] if "add" in a]
    assert {tuple(a["partitionValues"]) for a in adds} == {("part",)} and len(adds) == 2
    assert all(pq.read_schema(str(Path(p, a["path"]))).names == ["id", "remark"] for a in adds)
    assert rows(spark, p) == before == [(1, "a", "x"), (2, "b", "y")]
    assert rows(spark, p, version=mapped_version) == before  # the history still reads
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (4, 'c', 'w')")
    assert rows(spark, p)[-1] == (4, "c", "w")
    # a name that needs column mapping keeps it: the error names the column, nothing is committed
    q = str(tmp_path / "spaced")
    spark.sql(f"CREATE TABLE silt.`{q}` (`a b` INT) USING silt TBLPROPERTIES (delta.columnMapping.mode = 'name')")
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{q}` DROP FEATURE columnMapping"))
    assert "'a b'" in msg and "RENAME COLUMN" in msg and len(commits(q)) == 1


def test_features_that_cannot_be_dropped_are_refused_by_name(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableTypeWidening = true, "
              "delta.enableChangeDataFeed = true)")
    before = len(commits(p))
    for statement, words in [
        ("DROP FEATURE checkpointProtection", ["checkpointProtection", "does not have it"]),
        ("DROP FEATURE changeDataFeed", ["changeDataFeed", "does not let"]),
        ("DROP FEATURE deletionVectors", ["deletionVectors", "does not have it"]),
        ("DROP FEATURE noSuchFeature", ["noSuchFeature", "no table feature"]),
        ("DROP FEATURE `typeWidening-preview`", ["typeWidening-preview", "does not have it"]),
    ]:
        msg = raises_silt(silt.errors.InvalidTableOperationException,
                          lambda: spark.sql(f"ALTER TABLE silt.`{p}` {statement}"))
        assert all(w in msg for w in words), msg
    assert len(commits(p)) == before


def test_dropping_row_tracking_unbackfills_the_ids_then_domain_metadata_goes(spark, tmp_path):
    """As Delta 4.4: ids suspended, every file recommitted without them (ROW TRACKING UNBACKFILL),
    then the feature, its properties and its domain removed; domainMetadata can go after it."""
    p = str(tmp_path / "rt")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableRowTracking = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"UPDATE silt.`{p}` SET v = 'B' WHERE id = 2")
    before = rows(spark, p)
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE domainMetadata"))
    assert "rowTracking need it" in msg
    spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE rowTracking")
    assert operations(p)[-3:] == ["SET TBLPROPERTIES", "ROW TRACKING UNBACKFILL", "DROP FEATURE"]
    unbackfill, drop = commits(p)[-2:]
    adds = [a["add"] for a in unbackfill if "add" in a]
    assert adds and all("baseRowId" not in a and "defaultRowCommitVersion" not in a and not a["dataChange"] for a in adds)
    assert [a["domainMetadata"]["removed"] for a in drop if "domainMetadata" in a] == [True]
    detail = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
    assert not [k for k in detail.properties if "rowTracking" in k or "RowTracking" in k], detail.properties
    assert "rowTracking" not in protocol(p)["writerFeatures"] and rows(spark, p) == before
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3, 'c')")  # new files get no ids
    assert all("baseRowId" not in a["add"] for a in commits(p)[-1] if "add" in a)
    spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE domainMetadata")
    assert protocol(p) == {"minReaderVersion": 1, "minWriterVersion": 2}
    assert rows(spark, p) == [(1, "a"), (2, "B"), (3, "c")]
    # a clustered table keeps its domain: refused, naming the feature that needs it
    q = str(tmp_path / "clustered")
    spark.sql(f"CREATE TABLE silt.`{q}` (id INT) USING silt CLUSTER BY (id)")
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{q}` DROP FEATURE domainMetadata"))
    assert "clustering" in msg
