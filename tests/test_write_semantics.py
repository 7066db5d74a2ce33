"""Every write is honoured exactly or refused: dynamic overwrite, atomic replace, idempotent writes,
userMetadata, dataChange = false, maxRecordsPerFile, TRUNCATE, and refused options.

Each refusal is checked to commit nothing: the same latest version and the same files.
"""
import json
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import silt
from test_writes import raises_silt


def state(path):
    """The table's latest commit and live files, to show that a refused operation committed nothing."""
    log = Path(path) / "_delta_log"
    commits = sorted(p.name for p in log.glob("*.json"))
    live = {}
    for c in commits:
        for line in (log / c).read_text().splitlines():
            a = json.loads(line)
            if "add" in a:
                live[a["add"]["path"]] = True
            elif "remove" in a:
                live.pop(a["remove"]["path"], None)
    return commits[-1], sorted(live)


def last_commit(path):
    log = Path(path) / "_delta_log"
    return [json.loads(x) for x in sorted(log.glob("*.json"))[-1].read_text().splitlines()]


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def three_partitions(spark, path):
    spark.range(30).select((F.col("id") % 3).cast("int").alias("p"), "id") \
        .write.format("silt").partitionBy("p").save(path)


def one_row_of_partition_1(spark):
    return spark.createDataFrame([(1, 100)], "p int, id long")


def test_dynamic_partition_overwrite_option_replaces_only_written_partitions(spark, tmp_path):
    p = str(tmp_path / "t")
    three_partitions(spark, p)
    one_row_of_partition_1(spark).write.format("silt").mode("overwrite") \
        .option("partitionOverwriteMode", "dynamic").save(p)
    t = spark.read.format("silt").load(p)
    assert rows(t.groupBy("p").count()) == [(0, 10), (1, 1), (2, 10)]
    assert rows(t.where("p = 1")) == [(1, 100)]
    info = last_commit(p)[0]["commitInfo"]
    assert info["operationParameters"]["isDynamicPartitionOverwrite"] == "true"
    assert all(a["remove"]["partitionValues"] == {"p": "1"} for a in last_commit(p) if "remove" in a)


def test_dynamic_partition_overwrite_from_session_setting(spark, tmp_path):
    p = str(tmp_path / "t")
    three_partitions(spark, p)
    spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
    try:
        one_row_of_partition_1(spark).write.format("silt").mode("overwrite").save(p)
        assert spark.read.format("silt").load(p).count() == 21
        # replaceWhere as an option wins over the session's dynamic mode (Delta's rule)
        spark.createDataFrame([(2, 200)], "p int, id long").write.format("silt").mode("overwrite") \
            .option("replaceWhere", "p = 2").save(p)
        assert rows(spark.read.format("silt").load(p).groupBy("p").count()) == [(0, 10), (1, 1), (2, 1)]
        # INSERT OVERWRITE in dynamic mode
        spark.sql(f"INSERT OVERWRITE silt.`{p}` SELECT 0 AS p, 7L AS id")
        assert rows(spark.read.format("silt").load(p).groupBy("p").count()) == [(0, 1), (1, 1), (2, 1)]
    finally:
        spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    # static mode (the default) still replaces the whole table
    one_row_of_partition_1(spark).write.format("silt").mode("overwrite").save(p)
    assert spark.read.format("silt").load(p).count() == 1


def test_dynamic_overwrite_refusals_commit_nothing(spark, tmp_path):
    p = str(tmp_path / "t")
    three_partitions(spark, p)
    before = state(p)
    w = one_row_of_partition_1(spark).write.format("silt").mode("overwrite")
    msg = raises_silt(silt.InvalidTableOperationException, lambda: w.option("partitionOverwriteMode", "dynamic")
                      .option("replaceWhere", "p = 1").save(p))
    assert "replaceWhere" in msg and "partitionOverwriteMode" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: one_row_of_partition_1(spark).write.format("silt")
                      .mode("overwrite").option("partitionOverwriteMode", "sometimes").save(p))
    assert "partitionOverwriteMode" in msg and "sometimes" in msg
    assert state(p) == before


def test_save_as_table_overwrite_is_a_new_version_of_the_same_table(spark):
    spark.range(5).write.format("silt").saveAsTable("sat")
    try:
        table_id = spark.sql("DESCRIBE DETAIL sat").first()["id"]
        spark.range(7).write.format("silt").mode("overwrite").saveAsTable("sat")
        assert spark.table("sat").count() == 7
        assert spark.sql("DESCRIBE DETAIL sat").first()["id"] == table_id
        history = spark.sql("DESCRIBE HISTORY sat").orderBy("version").collect()
        assert [h["operation"] for h in history] == ["CREATE TABLE AS SELECT", "CREATE OR REPLACE TABLE AS SELECT"]
        assert spark.sql("SELECT count(*) FROM sat VERSION AS OF 0").first()[0] == 5
    finally:
        spark.sql("DROP TABLE IF EXISTS sat")


def test_create_or_replace_and_replace_table(spark):
    spark.sql("CREATE TABLE cor USING silt AS SELECT id FROM range(4)")
    try:
        spark.sql("CREATE OR REPLACE TABLE cor USING silt AS SELECT id, 'x' AS s FROM range(3)")
        assert spark.table("cor").columns == ["id", "s"]
        assert spark.table("cor").count() == 3
        spark.sql("REPLACE TABLE cor USING silt PARTITIONED BY (p) AS SELECT id, id % 2 AS p FROM range(6)")
        assert spark.sql("DESCRIBE DETAIL cor").first()["partitionColumns"] == ["p"]
        assert rows(spark.table("cor").groupBy("p").count()) == [(0, 3), (1, 3)]
        spark.sql("REPLACE TABLE cor (a INT NOT NULL) USING silt")
        assert spark.table("cor").count() == 0
        ops = [h["operation"] for h in spark.sql("DESCRIBE HISTORY cor").orderBy("version").collect()]
        assert ops == ["CREATE TABLE AS SELECT", "CREATE OR REPLACE TABLE AS SELECT", "REPLACE TABLE AS SELECT",
                       "REPLACE TABLE"]
        assert [r[0] for r in spark.sql("SELECT count(*) FROM cor VERSION AS OF 2").collect()] == [6]
        # a query that fails leaves the table as it was
        before = spark.sql("DESCRIBE DETAIL cor").first()["version"]
        with pytest.raises(Exception):
            spark.sql("CREATE OR REPLACE TABLE cor USING silt AS "
                      "SELECT raise_error('boom') AS a FROM range(3)").collect()
        assert spark.sql("DESCRIBE DETAIL cor").first()["version"] == before
        assert spark.table("cor").columns == ["a"]
    finally:
        spark.sql("DROP TABLE IF EXISTS cor")


def test_drop_managed_table_removes_folder_and_recreate_reads_fresh(spark):
    spark.sql("CREATE TABLE dropme USING silt AS SELECT id FROM range(5)")
    location = spark.sql("DESCRIBE DETAIL dropme").first()["location"].replace("file:", "")
    spark.sql("INSERT INTO dropme VALUES (5), (6)")
    spark.sql("DROP TABLE dropme")
    assert not Path(location).exists()
    # a table recreated at the same folder, written to the same versions, is never served from a stale cache
    spark.sql("CREATE TABLE dropme USING silt AS SELECT id FROM range(100, 103)")
    spark.sql("INSERT INTO dropme VALUES (200)")
    assert rows(spark.table("dropme")) == [(100,), (101,), (102,), (200,)]
    spark.sql("DROP TABLE dropme")


def test_create_table_at_a_location_holding_another_schema_refuses(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    msg = raises_silt(silt.SchemaMismatchException,
                      lambda: spark.sql(f"CREATE TABLE adopt (x STRING) USING silt LOCATION '{p}'"))
    assert "CREATE OR REPLACE" in msg
    spark.sql(f"CREATE TABLE adopt USING silt LOCATION '{p}'")
    assert spark.table("adopt").count() == 3
    spark.sql("DROP TABLE adopt")
    assert Path(p).exists(), "dropping an external table keeps its files"


def test_txn_app_id_skips_a_retried_write(spark, tmp_path):
    p = str(tmp_path / "t")
    df = spark.range(3)
    for _ in range(3):
        df.write.format("silt").mode("append").option("txnAppId", "app").option("txnVersion", 1).save(p)
    assert spark.read.format("silt").load(p).count() == 3
    assert len(list((Path(p) / "_delta_log").glob("*.json"))) == 1
    assert [a["txn"] for a in last_commit(p) if "txn" in a][0]["version"] == 1
    df.write.format("silt").mode("append").option("txnAppId", "app").option("txnVersion", 2).save(p)
    assert spark.read.format("silt").load(p).count() == 6
    before = state(p)
    msg = raises_silt(silt.UnsupportedOptionException,
                      lambda: df.write.format("silt").mode("append").option("txnAppId", "app").save(p))
    assert "txnVersion" in msg
    raises_silt(silt.UnsupportedOptionException, lambda: df.write.format("silt").mode("append")
                .option("txnAppId", "app").option("txnVersion", "abc").save(p))
    assert state(p) == before


def test_txn_session_settings_are_used_once(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.conf.set("spark.silt.write.txnAppId", "job")
    spark.conf.set("spark.silt.write.txnVersion", "5")
    try:
        spark.range(2).write.format("silt").mode("append").save(p)
        assert spark.conf.get("spark.silt.write.txnVersion", None) is None
        spark.conf.set("spark.silt.write.txnVersion", "5")
        spark.range(2).write.format("silt").mode("append").save(p)  # a retry of version 5: skipped
        assert spark.read.format("silt").load(p).count() == 2
        # a replace (saveAsTable in mode overwrite) uses the version once too
        spark.conf.set("spark.silt.write.txnVersion", "6")
        spark.range(4).write.format("silt").mode("overwrite").saveAsTable("txn_replaced")
        assert spark.conf.get("spark.silt.write.txnVersion", None) is None
        spark.conf.set("spark.silt.write.txnVersion", "6")
        spark.range(9).write.format("silt").mode("overwrite").saveAsTable("txn_replaced")  # a retry: skipped
        assert spark.table("txn_replaced").count() == 4
    finally:
        spark.conf.unset("spark.silt.write.txnAppId")
        spark.conf.unset("spark.silt.write.txnVersion")
        spark.sql("DROP TABLE IF EXISTS txn_replaced")


def test_user_metadata_in_commit_info_and_history(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(2).write.format("silt").option("userMetadata", "nightly load").save(p)
    spark.conf.set("spark.silt.commitInfo.userMetadata", "from session")
    try:
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 0")
    finally:
        spark.conf.unset("spark.silt.commitInfo.userMetadata")
    h = spark.sql(f"DESCRIBE HISTORY '{p}'").orderBy("version").collect()
    assert [r["userMetadata"] for r in h] == ["nightly load", "from session"]
    assert last_commit(p)[0]["commitInfo"]["userMetadata"] == "from session"


def test_data_change_false_rewrite(spark, tmp_path):
    p = str(tmp_path / "t")
    for i in range(4):
        spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(p)
    spark.read.format("silt").load(p).repartition(1).write.format("silt").mode("overwrite") \
        .option("dataChange", "false").save(p)
    actions = last_commit(p)
    adds = [a["add"] for a in actions if "add" in a]
    removes = [a["remove"] for a in actions if "remove" in a]
    assert len(adds) == 1 and len(removes) >= 4
    assert not any(a["dataChange"] for a in adds) and not any(r["dataChange"] for r in removes)
    assert spark.read.format("silt").load(p).count() == 40
    before = state(p)
    data = spark.read.format("silt").load(p)
    msg = raises_silt(silt.InvalidTableOperationException, lambda: data.withColumn("z", F.lit(1)).write
                      .format("silt").mode("overwrite").option("dataChange", "false").option("mergeSchema", "true").save(p))
    assert "dataChange" in msg and "schema" in msg
    raises_silt(silt.InvalidTableOperationException, lambda: data.withColumn("k", F.lit(1)).write.format("silt")
                .mode("overwrite").option("dataChange", "false").partitionBy("k").option("overwriteSchema", "true")
                .save(p))
    assert state(p) == before
    msg = raises_silt(silt.InvalidTableOperationException, lambda: spark.range(2).write.format("silt")
                      .option("dataChange", "false").save(str(tmp_path / "new")))
    assert "create" in msg


def test_max_records_per_file_and_compression(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(10).repartition(1).write.format("silt").option("maxRecordsPerFile", 3) \
        .option("compression", "gzip").save(p)
    files = [a["add"]["path"] for a in last_commit(p) if "add" in a]
    assert len(files) == 4 and all(".gz." in f for f in files)
    assert spark.read.format("silt").load(p).count() == 10
    raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt").mode("append")
                .option("maxRecordsPerFile", "lots").save(p))


def test_unknown_and_refused_options_name_themselves(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    before = state(p)
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt")
                      .mode("append").option("optimizeWrite", "yes").save(p))
    assert "optimizeWrite" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt")
                      .mode("append").option("mergeSchemaa", "true").save(p))
    assert "mergeSchemaa" in msg and "mergeSchema" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt")
                      .mode("append").option("delta.appendOnly", "true").save(p))
    assert "ALTER TABLE" in msg
    assert state(p) == before
    # the change feed of a table that never recorded it: refused, naming the version
    msg = raises_silt(silt.MissingChangeDataException, lambda: spark.read.format("silt")
                      .option("readChangeFeed", "true").option("startingVersion", 0).load(p).count())
    assert "version 0" in msg
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt")
                      .option("startingVersion", 0).load(p).count())
    assert "readChangeFeed" in msg
    msg = raises_silt(silt.UnsupportedOptionException,
                      lambda: spark.read.format("silt").option("versionAsof", 0).option("bogus", 1).load(p))
    assert "bogus" in msg


def test_delta_options_set_properties_of_a_new_table(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").option("delta.appendOnly", "true").save(p)
    assert spark.sql(f"DESCRIBE DETAIL '{p}'").first()["properties"] == {"delta.appendOnly": "true"}
    # the same value on an existing table is fine
    spark.range(1).write.format("silt").mode("append").option("delta.appendOnly", "true").save(p)


def test_truncate_table(spark):
    spark.sql("CREATE TABLE trunc (id BIGINT, p INT) USING silt PARTITIONED BY (p)")
    try:
        spark.sql("INSERT INTO trunc VALUES (1, 1), (2, 2), (3, 2)")
        spark.sql("TRUNCATE TABLE trunc")
        assert spark.table("trunc").count() == 0
        h = spark.sql("DESCRIBE HISTORY trunc").orderBy(F.desc("version")).first()
        assert h["operation"] == "TRUNCATE" and h["operationMetrics"]["numRemovedFiles"] == "2"
        assert spark.sql("SELECT count(*) FROM trunc VERSION AS OF 1").first()[0] == 3
        spark.sql("INSERT INTO trunc VALUES (1, 1)")
        version = spark.sql("DESCRIBE DETAIL trunc").first()["version"]
        with pytest.raises(Exception, match="(?i)partition"):
            spark.sql("TRUNCATE TABLE trunc PARTITION (p = 1)")
        assert spark.sql("DESCRIBE DETAIL trunc").first()["version"] == version
    finally:
        spark.sql("DROP TABLE IF EXISTS trunc")


def test_dml_honours_the_session_txn_settings(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(10).write.format("silt").save(p)
    spark.conf.set("spark.silt.write.txnAppId", "dml-job")
    try:
        spark.conf.set("spark.silt.write.txnVersion", "1")
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 3")
        assert spark.conf.get("spark.silt.write.txnVersion", None) is None
        assert [a["txn"]["version"] for a in last_commit(p) if "txn" in a] == [1]
        spark.conf.set("spark.silt.write.txnVersion", "1")  # the job retried: the DELETE is skipped
        spark.sql(f"INSERT INTO silt.`{p}` VALUES (0)")      # (an INSERT under the same version too)
        spark.conf.set("spark.silt.write.txnVersion", "1")
        assert spark.sql(f"UPDATE silt.`{p}` SET id = id + 100").first()[0] == 0
    finally:
        spark.conf.unset("spark.silt.write.txnAppId")
        spark.conf.unset("spark.silt.write.txnVersion")
    assert sorted(r.id for r in spark.read.format("silt").load(p).collect()) == list(range(3, 10))


def test_read_options_on_a_catalog_table(spark):
    spark.sql("CREATE TABLE ropt USING silt AS SELECT id FROM range(3)")
    try:
        spark.sql("INSERT INTO ropt VALUES (3)")
        assert spark.read.option("versionAsOf", 0).table("ropt").count() == 3
        assert spark.read.table("ropt").count() == 4
        # honoured, not ignored: the change feed needs its first version
        assert "startingVersion" in raises_silt(silt.InvalidTableOperationException,
                                                lambda: spark.read.option("readChangeFeed", "true").table("ropt").count())
        raises_silt(silt.MissingChangeDataException, lambda: spark.read.option("readChangeFeed", "true")
                    .option("startingVersion", 0).table("ropt").count())
        raises_silt(silt.UnsupportedOptionException, lambda: spark.read.option("maxFilesPerTrigger", 1).table("ropt").count())
    finally:
        spark.sql("DROP TABLE ropt")


def test_dataframe_writer_v2(spark):
    spark.sql(THREE_PARTITION_TABLE)
    try:
        one_row_of_partition_1(spark).writeTo("dfw").overwritePartitions()
        assert rows(spark.table("dfw").groupBy("p").count()) == [(0, 10), (1, 1), (2, 10)]
        spark.createDataFrame([(2, 200)], "p int, id long").writeTo("dfw").overwrite(F.col("p") == 2)
        assert rows(spark.table("dfw").where("p = 2")) == [(2, 200)]
        # as in Delta, rows outside the overwrite condition are refused (replaceWhere's check)
        with pytest.raises(Exception, match="does not satisfy"):
            one_row_of_partition_1(spark).writeTo("dfw").overwrite(F.col("p") == 2)
        for write in (lambda w: w.option("replaceWhere", "p = 1").overwritePartitions(),
                      lambda w: w.option("replaceWhere", "p = 1").overwrite(F.col("p") == 1)):
            msg = raises_silt(silt.InvalidTableOperationException, lambda: write(one_row_of_partition_1(spark).writeTo("dfw")))
            assert "replaceWhere" in msg
        spark.range(4).writeTo("dfw").using("silt").createOrReplace()
        assert spark.table("dfw").columns == ["id"] and spark.table("dfw").count() == 4
        msg = raises_silt(silt.UnsupportedOptionException,
                          lambda: spark.range(1).writeTo("dfw").option("bogus", "1").append())
        assert "bogus" in msg
    finally:
        spark.sql("DROP TABLE IF EXISTS dfw")


THREE_PARTITION_TABLE = ("CREATE TABLE dfw USING silt PARTITIONED BY (p) AS "
                         "SELECT CAST(id % 3 AS INT) AS p, id FROM range(30)")


def test_data_change_false_with_replace_where(spark, tmp_path):
    p = str(tmp_path / "t")
    for _ in range(3):
        spark.range(30).select((F.col("id") % 3).cast("int").alias("p"), "id") \
            .write.format("silt").mode("append").partitionBy("p").save(p)
    spark.read.format("silt").load(p).where("p = 1").repartition(1).write.format("silt").mode("overwrite") \
        .option("replaceWhere", "p = 1").option("dataChange", "false").save(p)
    actions = last_commit(p)
    assert [a["add"]["partitionValues"] for a in actions if "add" in a] == [{"p": "1"}]
    removes = [a["remove"] for a in actions if "remove" in a]
    assert len(removes) >= 3 and all(r["partitionValues"] == {"p": "1"} for r in removes)
    assert not any(a.get("add", a.get("remove", {})).get("dataChange", False) for a in actions[1:])
    assert rows(spark.read.format("silt").load(p).groupBy("p").count()) == [(0, 30), (1, 30), (2, 30)]


def test_save_as_table_overwrite_of_some_rows_only(spark):
    spark.sql(THREE_PARTITION_TABLE.replace("dfw", "sat_part"))
    try:
        one_row_of_partition_1(spark).write.format("silt").mode("overwrite") \
            .option("partitionOverwriteMode", "dynamic").saveAsTable("sat_part")
        assert rows(spark.table("sat_part").groupBy("p").count()) == [(0, 10), (1, 1), (2, 10)]
        spark.createDataFrame([(2, 200)], "p int, id long").write.format("silt").mode("overwrite") \
            .option("replaceWhere", "p = 2").saveAsTable("sat_part")
        assert rows(spark.table("sat_part").groupBy("p").count()) == [(0, 10), (1, 1), (2, 1)]
        ops = [h["operation"] for h in spark.sql("DESCRIBE HISTORY sat_part").orderBy("version").collect()]
        assert ops[1:] == ["WRITE", "WRITE"]
    finally:
        spark.sql("DROP TABLE IF EXISTS sat_part")


def test_unimplemented_table_properties_are_refused(spark, tmp_path):
    p = str(tmp_path / "t")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.sql(
        f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt TBLPROPERTIES ('delta.randomizeFilePrefixes' = 'true')"))
    assert "delta.randomizeFilePrefixes" in msg
    assert not (Path(p) / "_delta_log").exists()
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt TBLPROPERTIES ('team' = 'data', "
              "'delta.appendOnly' = 'false')")
    before = state(p)
    for key, value in (("delta.columnMapping.maxColumnId", "9"), ("delta.randomPrefixLength", "5")):
        msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.sql(
            f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('{key}' = '{value}')"))
        assert key in msg
    raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt")
                .option("delta.randomPrefixLength", "5").save(str(tmp_path / "u")))
    assert state(p) == before
    assert spark.sql(f"DESCRIBE DETAIL '{p}'").first()["properties"] == {"team": "data", "delta.appendOnly": "false"}
