"""The change data feed: DELETE, UPDATE and MERGE record their changed rows (with and without
deletion vectors), appends and removed files are read from the log, OPTIMIZE records nothing;
`readChangeFeed`, `table_changes` and `table_changes_by_path` read them back."""
import glob
import os

import pytest

from silt import (InvalidTableOperationException, MissingChangeDataException, SiltTable, UnsupportedOptionException,
                  VersionNotFoundException)
from test_writes import raises_silt


def create(spark, path, dvs, extra=""):
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING, p INT) USING silt PARTITIONED BY (p) "
              f"TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true', 'delta.enableDeletionVectors' = '{dvs}'{extra})")


def changes(spark, path, start=0, end=None, columns=("id", "v", "p", "_change_type", "_commit_version")):
    reader = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", start)
    if end is not None:
        reader = reader.option("endingVersion", end)
    return sorted(tuple(r) for r in reader.load(path).select(*columns).collect())


# copy-on-write (no deletion vectors) in the second tier: make test runs the deletion-vector case
@pytest.mark.parametrize("dvs", ["true", pytest.param("false", marks=pytest.mark.full)])
def test_each_operation_records_its_changes(spark, tmp_path, dvs):
    t = str(tmp_path / "t")
    create(spark, t, dvs)                                                                  # v0
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0),(2,'b',0),(3,'c',1),(4,'d',1),(5,'e',2),(6,'f',2)")  # v1
    spark.sql(f"DELETE FROM silt.`{t}` WHERE id = 1")                                      # v2: part of a file
    spark.sql(f"DELETE FROM silt.`{t}` WHERE p = 2")                                       # v3: whole files
    spark.sql(f"UPDATE silt.`{t}` SET v = 'C' WHERE id = 3")                               # v4
    spark.sql(f"""MERGE INTO silt.`{t}` t USING (SELECT 4L id, 'D' v, 1 p UNION ALL SELECT 2L, 'x', 0
                  UNION ALL SELECT 9L, 'z', 0) s ON t.id = s.id
                  WHEN MATCHED AND s.id = 2 THEN DELETE WHEN MATCHED THEN UPDATE SET *
                  WHEN NOT MATCHED THEN INSERT *""")                                       # v5
    spark.sql(f"OPTIMIZE silt.`{t}`")                                                      # v6: no change rows
    spark.sql(f"""MERGE INTO silt.`{t}` t USING (SELECT 9L id) s ON t.id = s.id
                  WHEN NOT MATCHED BY SOURCE AND t.id = 3 THEN UPDATE SET v = 'CC'""")     # v7
    inserted = [(1, 'a', 0), (2, 'b', 0), (3, 'c', 1), (4, 'd', 1), (5, 'e', 2), (6, 'f', 2)]
    assert changes(spark, t) == sorted(
        [r + ("insert", 1) for r in inserted] +
        [(1, 'a', 0, "delete", 2), (5, 'e', 2, "delete", 3), (6, 'f', 2, "delete", 3),
         (3, 'c', 1, "update_preimage", 4), (3, 'C', 1, "update_postimage", 4),
         (4, 'd', 1, "update_preimage", 5), (4, 'D', 1, "update_postimage", 5), (2, 'b', 0, "delete", 5),
         (9, 'z', 0, "insert", 5),
         (3, 'C', 1, "update_preimage", 7), (3, 'CC', 1, "update_postimage", 7)])
    # change data files only where rows were rewritten or marked; OPTIMIZE's commit has none
    cdc_versions = {v for v in range(8) if any('"cdc"' in line for line in open(
        os.path.join(t, "_delta_log", f"{v:020d}.json")))}
    assert cdc_versions == {2, 4, 5, 7}
    assert changes(spark, t, start=4, end=5) == [r for r in changes(spark, t) if r[4] in (4, 5)]
    assert changes(spark, t, start=6, end=6) == []


def test_a_file_whose_rows_are_all_deleted_still_records_them(spark, tmp_path):
    t = str(tmp_path / "t")
    create(spark, t, "true")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0),(2,'b',0)")
    spark.sql(f"DELETE FROM silt.`{t}` WHERE id < 10")  # with DVs: the file goes, its rows recorded
    assert changes(spark, t, start=2) == [(1, 'a', 0, "delete", 2), (2, 'b', 0, "delete", 2)]


def test_commit_columns_and_timestamps(spark, tmp_path):
    t = str(tmp_path / "t")
    create(spark, t, "true")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0)")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (2,'b',0)")
    df = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", 1).load(t)
    assert df.columns == ["id", "v", "p", "_change_type", "_commit_version", "_commit_timestamp"]
    history = {r.version: r.timestamp for r in spark.sql(f"DESCRIBE HISTORY silt.`{t}`").collect()}
    assert sorted((r.id, r._commit_version, r._commit_timestamp) for r in df.collect()) == \
        [(1, 1, history[1]), (2, 2, history[2])]
    # timestamps select the same versions
    by_time = spark.read.format("silt").option("readChangeFeed", "true") \
        .option("startingTimestamp", str(history[2])).option("endingTimestamp", str(history[2])).load(t)
    assert [r.id for r in by_time.collect()] == [2]
    # a filter on the commit columns prunes and still gives the right rows
    assert [r.id for r in df.where("_commit_version = 2").collect()] == [2]


def test_table_changes_functions(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS cdf_named")
    spark.sql("CREATE TABLE cdf_named (id BIGINT, v STRING) USING silt TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    spark.sql("INSERT INTO cdf_named VALUES (1, 'a'), (2, 'b')")
    spark.sql("UPDATE cdf_named SET v = 'B' WHERE id = 2")
    rows = spark.sql("SELECT id, v, _change_type FROM table_changes('cdf_named', 1) ORDER BY _commit_version, _change_type")
    assert [tuple(r) for r in rows.collect()] == [(1, 'a', 'insert'), (2, 'b', 'insert'),
                                                  (2, 'B', 'update_postimage'), (2, 'b', 'update_preimage')]
    location = spark.sql("DESCRIBE DETAIL cdf_named").first()["location"]
    assert spark.sql(f"SELECT count(*) FROM table_changes_by_path('{location}', 2, 2)").first()[0] == 2
    history = {r.version: str(r.timestamp) for r in spark.sql("DESCRIBE HISTORY cdf_named").collect()}
    assert spark.sql(f"SELECT count(*) FROM table_changes('cdf_named', '{history[2]}')").first()[0] == 2
    # the Python API reads the same rows
    table = SiltTable.for_name(spark, "cdf_named")
    assert sorted(tuple(r) for r in table.changes(2).select("id", "_change_type").collect()) == \
        [(2, 'update_postimage'), (2, 'update_preimage')]
    assert table.changes(1, 1).count() == 2
    raises_silt(InvalidTableOperationException, lambda: spark.sql("SELECT * FROM table_changes('cdf_named')").collect())
    # the DataFrame reader and the streaming reader of a catalog table read the feed too
    df = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", 2).table("cdf_named")
    assert df.columns == ["id", "v", "_change_type", "_commit_version", "_commit_timestamp"]
    assert sorted((r.id, r.v, r._change_type) for r in df.collect()) == [(2, 'B', 'update_postimage'),
                                                                          (2, 'b', 'update_preimage')]
    assert df.where("_change_type = 'update_preimage'").select("v").first()[0] == 'b'
    raises_silt(UnsupportedOptionException, lambda: spark.read.format("silt").option("readChangeFeed", "true")
                .option("startingVersion", 1).option("versionAsOf", 1).table("cdf_named").collect())
    target, cp = str(tmp_path / "dst"), str(tmp_path / "cp")
    query = (spark.readStream.format("silt").option("readChangeFeed", "true").option("startingVersion", 1)
             .table("cdf_named").writeStream.format("silt").option("checkpointLocation", cp)
             .trigger(availableNow=True).start(target))
    query.awaitTermination()
    assert sorted(tuple(r) for r in spark.read.format("silt").load(target).select("id", "_change_type").collect()) == \
        [(1, 'insert'), (2, 'insert'), (2, 'update_postimage'), (2, 'update_preimage')]
    spark.sql("DROP TABLE cdf_named")


def test_ranges_the_feed_does_not_cover_are_refused(spark, tmp_path):
    t = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{t}` (id BIGINT) USING silt")                                   # v0
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1)")                                               # v1
    spark.sql(f"ALTER TABLE silt.`{t}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")  # v2
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (2)")                                               # v3
    message = raises_silt(MissingChangeDataException, lambda: changes(spark, t, 1, columns=("id",)))
    assert "version 1" in message and "delta.enableChangeDataFeed" in message
    assert changes(spark, t, 2, columns=("id", "_change_type")) == [(2, "insert")]
    read = lambda **o: spark.read.format("silt").option("readChangeFeed", "true").options(**o).load(t).collect()
    assert "startingVersion" in raises_silt(InvalidTableOperationException, lambda: read())
    assert "latest version 3" in raises_silt(VersionNotFoundException, lambda: read(startingVersion="9"))
    raises_silt(InvalidTableOperationException, lambda: read(startingVersion="3", endingVersion="2"))
    assert len(read(startingVersion="3", endingVersion="99")) == 1  # an end past the latest version: the latest
    raises_silt(UnsupportedOptionException, lambda: read(startingVersion="3", versionAsOf="1"))
    # a value that is not a boolean is refused, not read as "off" (which would return the table's rows)
    assert "readChangeFeed" in raises_silt(UnsupportedOptionException, lambda: spark.read.format("silt")
                                           .option("readChangeFeed", "yes").load(t).collect())
    # a change-feed stream reads deletes and updates: the options that skip them are refused with it
    assert "skipChangeCommits" in raises_silt(UnsupportedOptionException, lambda: spark.readStream.format("silt")
                                              .option("readChangeFeed", "true").option("skipChangeCommits", "true")
                                              .load(t))
    assert "readChangeFeed" in raises_silt(UnsupportedOptionException, lambda: spark.read.format("silt")
                                           .option("startingVersion", "1").load(t).collect())
    # a table with a column named as a change row's own cannot turn the feed on
    u = str(tmp_path / "u")
    spark.sql(f"CREATE TABLE silt.`{u}` (id BIGINT, _change_type STRING) USING silt")
    assert "_change_type" in raises_silt(InvalidTableOperationException, lambda: spark.sql(
        f"ALTER TABLE silt.`{u}` SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')"))


def test_protocol_and_vacuum_of_change_data(spark, tmp_path):
    t = str(tmp_path / "t")
    create(spark, t, "false")
    first = open(os.path.join(t, "_delta_log", f"{0:020d}.json")).read()
    assert '"minWriterVersion":4' in first or '"changeDataFeed"' in first
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0),(2,'b',0)")
    spark.sql(f"UPDATE silt.`{t}` SET v = 'A' WHERE id = 1")
    cdc_files = glob.glob(os.path.join(t, "_change_data", "**", "*.parquet"), recursive=True)
    assert cdc_files
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM silt.`{t}` RETAIN 0 HOURS")
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    assert not any(os.path.exists(f) for f in cdc_files)
    assert sorted(tuple(r) for r in spark.read.format("silt").load(t).collect()) == [(1, 'A', 0), (2, 'b', 0)]


def test_column_mapping_renames_show_in_the_feed(spark, tmp_path, setting):
    # a read across the rename is refused unless asked for, as in Delta Lake (test_delta_retention_settings.py)
    setting("spark.databricks.delta.changeDataFeed.unsafeBatchReadOnIncompatibleSchemaChanges.enabled", "true")
    t = str(tmp_path / "t")
    create(spark, t, "true", ", 'delta.columnMapping.mode' = 'name'")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0),(2,'b',1)")
    spark.sql(f"ALTER TABLE silt.`{t}` RENAME COLUMN v TO label")
    spark.sql(f"UPDATE silt.`{t}` SET label = 'B' WHERE id = 2")
    assert changes(spark, t, columns=("id", "label", "p", "_change_type")) == sorted([
        (1, 'a', 0, "insert"), (2, 'b', 1, "insert"), (2, 'b', 1, "update_preimage"), (2, 'B', 1, "update_postimage")])


def test_streaming_the_change_feed(spark, tmp_path):
    from test_streaming_source import batches, pump
    t, target, cp = str(tmp_path / "t"), str(tmp_path / "dst"), str(tmp_path / "cp")
    create(spark, t, "true")
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (1,'a',0),(2,'b',0),(3,'c',1)")  # v1
    feed = ("id", "v", "p", "_change_type", "_commit_version")
    pump(spark, t, target, cp, readChangeFeed="true")  # the initial snapshot, as inserts of version 1
    assert sorted(tuple(r) for r in spark.read.format("silt").load(target).select(*feed).collect()) == \
        [(1, 'a', 0, "insert", 1), (2, 'b', 0, "insert", 1), (3, 'c', 1, "insert", 1)]
    spark.sql(f"DELETE FROM silt.`{t}` WHERE id = 1")         # v2
    spark.sql(f"UPDATE silt.`{t}` SET v = 'C' WHERE id = 3")  # v3
    spark.sql(f"OPTIMIZE silt.`{t}`")                         # v4
    spark.sql(f"INSERT INTO silt.`{t}` VALUES (4,'d',1)")     # v5
    pump(spark, t, target, cp, readChangeFeed="true")
    streamed = sorted(tuple(r) for r in spark.read.format("silt").load(target).select(*feed).collect())
    assert [r for r in streamed if r[4] > 1] == changes(spark, t, start=2)
    # from a version, a micro-batch a file: the same rows as the batch read of the feed
    target2, cp2 = str(tmp_path / "dst2"), str(tmp_path / "cp2")
    query = pump(spark, t, target2, cp2, readChangeFeed="true", startingVersion="1", maxFilesPerTrigger="1")
    assert len(batches(query)) > 3
    assert sorted(tuple(r) for r in spark.read.format("silt").load(target2).select(*feed).collect()) == \
        changes(spark, t, start=1)
