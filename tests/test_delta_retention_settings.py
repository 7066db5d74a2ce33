"""What Delta Lake 4.4 does by default, and Silt with it, each under the Delta setting that turns it off:
time travel within delta.deletedFileRetentionDuration, VACUUM RETAIN n HOURS (n > 0) keeping the
table's retention, retentions that keep the log at least as long as removed files, change feed
timestamps after the latest commit, change feed reads across renamed columns, CONVERT of a streaming
query's folder, timestamp partition values in UTC."""
import json
import time

import pytest

import silt
from conftest import needs_spark_4
from test_writes import commits, raises_silt

# Delta Lake 4.4's defaults; on Spark 3.5 Silt keeps Delta Lake 3.3's, which has none of these checks.
delta_4_default = needs_spark_4("Delta Lake 4.4's default (Delta Lake 3.3 has no such check)")


def error_class(spark, fn):
    with pytest.raises(Exception) as info:
        fn()
    return getattr(info.value, "getCondition", lambda: None)() or str(info.value)


def short_retention_table(spark, path, seconds=1):
    spark.range(5).write.format("silt").option("delta.deletedFileRetentionDuration", f"interval {seconds} seconds") \
        .option("delta.enableChangeDataFeed", "true").save(path)
    time.sleep(seconds + 0.5)
    spark.range(3).write.format("silt").mode("overwrite").save(path)


@delta_4_default
def test_time_travel_beyond_the_deleted_file_retention_is_refused(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    short_retention_table(spark, p)
    read = lambda: spark.read.format("silt").option("versionAsOf", 0).load(p).count()  # noqa: E731
    msg = raises_silt(silt.VersionNotFoundException, read)
    assert "delta.deletedFileRetentionDuration" in msg and "spark.silt.timeTravel.retentionCheck.enabled" in msg
    assert "DELTA_UNSUPPORTED_TIME_TRAVEL_BEYOND_DELETED_FILE_RETENTION_DURATION" in error_class(spark, read)
    before = commits(p)
    raises_silt(silt.VersionNotFoundException, lambda: spark.sql(f"RESTORE TABLE silt.`{p}` TO VERSION AS OF 0"))
    raises_silt(silt.VersionNotFoundException, lambda: spark.read.format("silt").option("readChangeFeed", "true")
                .option("startingVersion", 0).load(p).count())
    assert commits(p) == before
    assert spark.read.format("silt").option("versionAsOf", 1).load(p).count() == 3  # the latest is always readable
    setting("spark.databricks.delta.vacuum.enforceTimeTravelWithinDeletedFileRetentionDuration", "false")
    assert read() == 5


def parquet_files(folder):
    return len(list(folder.glob("*.parquet")))


def live_files(spark, path):
    return silt.SiltTable.for_path(spark, path).detail().first().numFiles


@delta_4_default
def test_vacuum_retain_other_than_zero_hours_keeps_the_tables_retention(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.range(5).write.format("silt").option("delta.deletedFileRetentionDuration", "interval 0 hours").save(p)
    spark.range(3).write.format("silt").mode("overwrite").save(p)
    assert parquet_files(tmp_path / "t") > live_files(spark, p)
    # RETAIN 100 HOURS is not the retention: the table's (0 hours) is, as in Delta Lake 4.4
    spark.sql(f"VACUUM silt.`{p}` RETAIN 100 HOURS").collect()
    assert parquet_files(tmp_path / "t") == live_files(spark, p)
    q = str(tmp_path / "q")
    spark.range(5).write.format("silt").option("delta.deletedFileRetentionDuration", "interval 0 hours").save(q)
    spark.range(3).write.format("silt").mode("overwrite").save(q)
    setting("spark.databricks.delta.vacuum.retentionWindowIgnore.enabled", "false")
    spark.sql(f"VACUUM silt.`{q}` RETAIN 100 HOURS").collect()
    assert parquet_files(tmp_path / "q") > live_files(spark, q)


@pytest.mark.full  # second tier: make test was past 15 minutes (39 s)
@pytest.mark.reference
def test_vacuum_retain_keeps_what_the_reference_keeps(spark, tmp_path):
    """RETAIN 100 HOURS on a table whose retention is 0 hours: Delta Lake 4.4 deletes the removed files (it keeps
    the table's retention), Delta Lake 3.3 (Spark 3.5) keeps them; Silt does what the minor's reference does."""
    from test_interop import run_reference
    statements = lambda fmt, p: [  # noqa: E731
        f"CREATE TABLE {fmt}.`{p}` USING {fmt} TBLPROPERTIES ('delta.deletedFileRetentionDuration' = "
        "'interval 0 hours') AS SELECT id FROM range(5)",
        f"INSERT OVERWRITE {fmt}.`{p}` SELECT id FROM range(3)",
        f"VACUUM {fmt}.`{p}` RETAIN 100 HOURS"]
    ref = str(tmp_path / "ref")
    res = run_reference([{"op": "sql", "statements": statements("delta", ref)}, {"op": "detail", "path": ref}])
    assert all(r["ok"] for r in res), res
    mine = str(tmp_path / "silt")
    for statement in statements("silt", mine):
        spark.sql(statement).collect()
    assert (parquet_files(tmp_path / "silt") == live_files(spark, mine)) == \
        (parquet_files(tmp_path / "ref") == res[1]["numFiles"])


@delta_4_default
def test_a_log_retention_shorter_than_the_deleted_file_retention_is_refused(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.range(1).write.format("silt").save(p)
    alter = lambda: spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ("  # noqa: E731
                              "'delta.logRetentionDuration' = 'interval 2 days', "
                              "'delta.deletedFileRetentionDuration' = 'interval 3 days')")
    msg = raises_silt(silt.InvalidTableOperationException, alter)
    assert "delta.logRetentionDuration" in msg and "must not be shorter" in msg
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.checkpointInterval' = '5')")  # unrelated: fine
    setting("spark.databricks.delta.vacuum.enforceDeletedFileAndLogRetentionDurationCompatibility", "false")
    alter()


def test_change_feed_timestamps_after_the_latest_commit(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").option("delta.enableChangeDataFeed", "true").save(p)
    spark.range(3, 5).write.format("silt").mode("append").save(p)
    feed = lambda **o: spark.read.format("silt").options(readChangeFeed="true", **o).load(p).count()  # noqa: E731
    msg = raises_silt(silt.VersionNotFoundException, lambda: feed(startingVersion=0, endingTimestamp="2999-01-01"))
    assert "after the latest commit" in msg
    raises_silt(silt.VersionNotFoundException, lambda: feed(startingTimestamp="2999-01-01"))
    setting("spark.databricks.delta.changeDataFeed.timestampOutOfRange.enabled", "true")
    assert feed(startingVersion=0, endingTimestamp="2999-01-01") == 5
    assert feed(startingTimestamp="2999-01-01") == 0


def test_change_feed_across_a_renamed_column_is_refused_unless_asked(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    spark.range(3).selectExpr("id", "id AS v").write.format("silt").option("delta.enableChangeDataFeed", "true") \
        .option("delta.columnMapping.mode", "name").save(p)
    spark.sql(f"ALTER TABLE silt.`{p}` RENAME COLUMN v TO w")
    spark.range(3, 4).selectExpr("id", "id AS w").write.format("silt").mode("append").save(p)
    feed = lambda: spark.read.format("silt").options(readChangeFeed="true", startingVersion=0).load(p)  # noqa: E731
    msg = raises_silt(silt.InvalidTableOperationException, lambda: feed().count())
    assert "column v of version 0 was renamed w" in msg
    assert spark.read.format("silt").options(readChangeFeed="true", startingVersion=2).load(p).count() == 1
    setting("spark.databricks.delta.changeDataFeed.unsafeBatchReadOnIncompatibleSchemaChanges.enabled", "true")
    assert sorted(r.w for r in feed().collect()) == [0, 1, 2, 3]


def test_convert_of_a_streaming_querys_folder_is_refused_unless_told_to_list_it(spark, tmp_path, setting):
    folder = tmp_path / "out"
    spark.range(4).write.parquet(str(folder))
    (folder / "_spark_metadata").mkdir()
    (folder / "_spark_metadata" / "0").write_text("v1\n")
    convert = lambda: spark.sql(f"CONVERT TO DELTA parquet.`{folder}`")  # noqa: E731
    msg = raises_silt(silt.ConvertToDeltaException, convert)
    assert "_spark_metadata" in msg and "spark.databricks.delta.convert.useMetadataLog" in msg
    assert not (folder / "_delta_log").exists()
    setting("spark.databricks.delta.convert.useMetadataLog", "false")
    convert()
    assert spark.read.format("silt").load(str(folder)).count() == 4


def test_timestamp_partition_values_are_written_in_utc_as_delta_lake_writes_them(spark, tmp_path, setting):
    p = str(tmp_path / "t")
    setting("spark.sql.session.timeZone", "America/New_York")
    spark.sql("SELECT 1 AS id, TIMESTAMP'2024-01-02 03:04:05' AS ts").write.format("silt").partitionBy("ts").save(p)
    log = (tmp_path / "t" / "_delta_log" / "00000000000000000000.json").read_text().splitlines()
    [add] = [json.loads(l)["add"] for l in log if '"add"' in l]
    assert add["partitionValues"] == {"ts": "2024-01-02T08:04:05.000000Z"}
    # the same partition written in the session's form is still one partition to a dynamic overwrite
    setting("spark.databricks.delta.write.utcTimestampPartitionValues", "false")
    spark.sql("SELECT 2 AS id, TIMESTAMP'2024-01-02 03:04:05' AS ts").write.format("silt").mode("overwrite") \
        .option("partitionOverwriteMode", "dynamic").save(p)
    rows = spark.read.format("silt").load(p).selectExpr("id", "CAST(ts AS STRING) AS ts").collect()
    assert [(r.id, r.ts) for r in rows] == [(2, "2024-01-02 03:04:05")]
    log = (tmp_path / "t" / "_delta_log" / "00000000000000000001.json").read_text().splitlines()
    assert [json.loads(l)["add"]["partitionValues"] for l in log if '"add"' in l] == [{"ts": "2024-01-02 03:04:05"}]
