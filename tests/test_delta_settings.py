"""Delta Lake's session settings (`spark.databricks.delta.*`) that Silt implements are the same
settings as Silt's own keys, honoured under either name (the others: test_delta_session_keys.py)."""

import silt
from test_settings import table  # noqa: F401 - a fixture
from test_writes import commits, raises_silt


def test_schema_auto_merge_under_delta_lake_name(spark, table, setting):
    setting("spark.databricks.delta.schema.autoMerge.enabled", "true")
    spark.range(2).selectExpr("id", "'x' AS note").write.format("silt").mode("append").save(table)
    assert spark.read.format("silt").load(table).columns == ["id", "note"]


def test_retention_check_under_delta_lake_name(spark, table, setting):
    raises_silt(silt.InvalidTableOperationException, lambda: spark.sql(f"VACUUM '{table}' RETAIN 0 HOURS").collect())
    setting("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    spark.sql(f"VACUUM '{table}' RETAIN 0 HOURS").collect()


def test_user_metadata_under_delta_lake_name(spark, table, setting):
    setting("spark.databricks.delta.commitInfo.userMetadata", "nightly")
    spark.range(1).write.format("silt").mode("append").save(table)
    assert silt.SiltTable.for_path(spark, table).history(1).first().userMetadata == "nightly"


def test_both_names_set_to_different_values_are_refused(spark, table, setting):
    setting("spark.silt.schema.autoMerge.enabled", "true")
    setting("spark.databricks.delta.schema.autoMerge.enabled", "false")
    before = commits(table)
    msg = raises_silt(silt.UnsupportedOptionException,
                      lambda: spark.range(1).write.format("silt").mode("append").save(table))
    assert "spark.silt.schema.autoMerge.enabled" in msg and "spark.databricks.delta.schema.autoMerge.enabled" in msg
    assert commits(table) == before


def test_both_names_set_to_the_same_value_are_one_setting(spark, table, setting):
    setting("spark.silt.schema.autoMerge.enabled", "true")
    setting("spark.databricks.delta.schema.autoMerge.enabled", "TRUE")
    spark.range(1).selectExpr("id", "1 AS n").write.format("silt").mode("append").save(table)
    assert "n" in spark.read.format("silt").load(table).columns


def test_a_bad_value_under_delta_lake_name_names_that_key(spark, table, setting):
    setting("spark.databricks.delta.optimize.maxThreads", "many")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "spark.databricks.delta.optimize.maxThreads" in msg and "'many'" in msg


def test_property_defaults_apply_to_the_tables_the_session_creates(spark, tmp_path, setting):
    setting("spark.databricks.delta.properties.defaults.appendOnly", "true")
    setting("spark.silt.properties.defaults.enableChangeDataFeed", "true")
    created = str(tmp_path / "created")
    spark.range(3).write.format("silt").save(created)
    props = silt.SiltTable.for_path(spark, created).detail().first().properties
    assert props["delta.appendOnly"] == "true" and props["delta.enableChangeDataFeed"] == "true"
    # what the statement gives wins over the default
    given = str(tmp_path / "given")
    spark.sql(f"CREATE TABLE silt.`{given}` (id BIGINT) USING silt TBLPROPERTIES ('delta.appendOnly' = 'false')")
    assert silt.SiltTable.for_path(spark, given).detail().first().properties["delta.appendOnly"] == "false"
    # an existing table does not get them from a later write
    spark.conf.unset("spark.databricks.delta.properties.defaults.appendOnly")
    spark.conf.set("spark.databricks.delta.properties.defaults.checkpointInterval", "3")
    spark.range(1).write.format("silt").mode("append").save(given)
    assert "delta.checkpointInterval" not in silt.SiltTable.for_path(spark, given).detail().first().properties
    spark.conf.unset("spark.databricks.delta.properties.defaults.checkpointInterval")


def test_property_defaults_of_the_protocol(spark, tmp_path, setting):
    setting("spark.databricks.delta.properties.defaults.minWriterVersion", "4")
    p = str(tmp_path / "t")
    spark.range(1).write.format("silt").save(p)
    assert silt.SiltTable.for_path(spark, p).detail().first().minWriterVersion == 4


def test_an_unknown_property_default_is_refused_naming_it(spark, tmp_path, setting):
    setting("spark.databricks.delta.properties.defaults.noSuchProperty", "1")
    p = str(tmp_path / "t")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.range(1).write.format("silt").save(p))
    assert "noSuchProperty" in msg


def test_txn_version_under_delta_lake_name_is_kept_as_delta_lake_keeps_it(spark, table, setting):
    setting("spark.databricks.delta.write.txnAppId", "job")
    setting("spark.databricks.delta.write.txnVersion", "1")
    spark.range(5).write.format("silt").mode("append").save(table)
    spark.range(5).write.format("silt").mode("append").save(table)  # the same version again: skipped
    assert spark.read.format("silt").load(table).count() == 15
    assert spark.conf.get("spark.databricks.delta.write.txnVersion") == "1"
    setting("spark.databricks.delta.write.txnVersion.autoReset.enabled", "true")
    spark.conf.set("spark.databricks.delta.write.txnVersion", "2")
    spark.range(5).write.format("silt").mode("append").save(table)
    assert spark.read.format("silt").load(table).count() == 20
    assert spark.conf.get("spark.databricks.delta.write.txnVersion", None) is None


def test_txn_version_under_silt_name_is_cleared_after_use(spark, table, setting):
    setting("spark.silt.write.txnAppId", "job")
    setting("spark.silt.write.txnVersion", "1")
    spark.range(5).write.format("silt").mode("append").save(table)
    assert spark.conf.get("spark.silt.write.txnVersion", None) is None


def test_bin_size_under_delta_lakes_name_is_a_byte_size(spark, table, setting):
    # Delta Lake's optimizeWrite.binSize is bytes (536870912b by default), Silt's MiB: one setting all the same
    setting("spark.databricks.delta.optimizeWrite.binSize", "128m")
    setting("spark.silt.optimizeWrite.binSize", "128")
    spark.range(3).write.format("silt").mode("append").option("optimizeWrite", "true").save(table)
    spark.conf.set("spark.silt.optimizeWrite.binSize", "512")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "spark.databricks.delta.optimizeWrite.binSize = '128m'" in msg
    spark.conf.unset("spark.silt.optimizeWrite.binSize")
    spark.conf.set("spark.databricks.delta.optimizeWrite.binSize", "lots")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "'lots'" in msg and "a byte size" in msg
