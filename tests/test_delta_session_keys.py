"""Every session setting Delta Lake registers is in one class: honoured (Silt's setting under Delta's name),
no effect (it tunes Delta Lake's own implementation: accepted and listed), or not implemented (a statement
its value would change is refused, naming it). A key Delta Lake does not have is refused as a misspelling."""
import pytest

import silt
from conftest import reference_delta_settings
from test_settings import table  # noqa: F401 - a fixture
from test_writes import commits, raises_silt

# What Delta deployments set (Delta's own test harness among them); each tunes Delta Lake's implementation,
# or is set to Delta's default.
DELTA_TUNING = {
    "spark.databricks.delta.snapshotPartitions": "5",
    "spark.databricks.delta.delta.log.cacheSize": "3",
    "spark.databricks.delta.merge.repartitionBeforeWrite.enabled": "false",
    "spark.databricks.delta.tableFeatures.fastDropFeature.enabled": "true",
    "spark.databricks.delta.identityColumn.enabled": "true",
}


def registry(spark):
    return spark._jvm.io.silt.config.DeltaSessionKeys


def treatment(spark, key):
    t = registry(spark).treatmentOf(key)
    return t.get().name() if t.isDefined() else None


@pytest.mark.smoke
def test_delta_tuning_settings_run_every_statement_and_are_listed(spark, table, setting, tmp_path):
    for k, v in DELTA_TUNING.items():
        setting(k, v)
    spark.range(10, 20).write.format("silt").mode("append").save(table)
    spark.sql(f"DELETE FROM silt.`{table}` WHERE id < 3")
    spark.sql(f"UPDATE silt.`{table}` SET id = id + 100 WHERE id = 5")
    spark.sql(f"MERGE INTO silt.`{table}` t USING (SELECT 7 AS id) s ON t.id = s.id "
              "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"OPTIMIZE silt.`{table}`").collect()
    spark.sql(f"VACUUM silt.`{table}`").collect()
    target = str(tmp_path / "copy")
    (spark.readStream.format("silt").load(table).writeStream.format("silt")
     .option("checkpointLocation", str(tmp_path / "cp")).trigger(availableNow=True).start(target).awaitTermination())
    expected = sorted(set(range(3, 10)) - {5, 7} | set(range(10, 20)) | {105})
    assert sorted(r.id for r in spark.read.format("silt").load(table).collect()) == expected
    assert sorted(r.id for r in spark.read.format("silt").load(target).collect()) == expected
    listed = {r.key: r for r in silt.session_settings(spark).collect()}
    for k, v in DELTA_TUNING.items():
        assert listed[k].value == v
    assert listed["spark.databricks.delta.snapshotPartitions"].treatment == "no effect"
    assert "snapshot" in listed["spark.databricks.delta.snapshotPartitions"].meaning
    assert listed["spark.databricks.delta.identityColumn.enabled"].treatment == "not implemented"


def test_a_misspelt_delta_setting_is_refused_naming_the_closest(spark, table, setting):
    setting("spark.databricks.delta.snapshotPartition", "5")
    before = commits(table)
    for action in (lambda: spark.read.format("silt").load(table).count(),
                   lambda: spark.range(1).write.format("silt").mode("append").save(table)):
        msg = raises_silt(silt.UnsupportedOptionException, action)
        assert "spark.databricks.delta.snapshotPartition is not a Delta Lake setting" in msg
        assert "the closest is spark.databricks.delta.snapshotPartitions" in msg
    assert commits(table) == before
    [row] = [r for r in silt.session_settings(spark).collect() if r.key == "spark.databricks.delta.snapshotPartition"]
    assert row.treatment == "refused"


def test_a_setting_silt_does_not_implement_refuses_only_the_statements_it_changes(spark, table, setting):
    key = "spark.databricks.delta.merge.failIfSourceChanged"
    setting(key, "true")
    spark.range(10, 12).write.format("silt").mode("append").save(table)
    spark.sql(f"DELETE FROM silt.`{table}` WHERE id = 0")
    assert spark.read.format("silt").load(table).count() == 11
    before = commits(table)
    merge = lambda: spark.sql(f"MERGE INTO silt.`{table}` t USING (SELECT 1 AS id) s ON t.id = s.id "  # noqa: E731
                              "WHEN MATCHED THEN DELETE")
    msg = raises_silt(silt.UnsupportedOptionException, merge)
    assert f"{key} = 'true'" in msg and "MERGE" in msg and "Silt behaves as Delta Lake's default" in msg
    assert commits(table) == before
    spark.conf.set(key, "FALSE")  # Delta's default, in another case: what Silt does
    merge()
    assert spark.read.format("silt").load(table).count() == 10


def test_a_setting_every_statement_depends_on_is_refused_when_a_table_is_opened(spark, table, setting):
    setting("spark.databricks.delta.workAroundColonsInHadoopPaths.enabled", "false")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "workAroundColonsInHadoopPaths" in msg and "this statement" in msg


def test_reads_are_refused_by_a_setting_that_changes_reads(spark, table, setting):
    setting("spark.databricks.delta.stalenessLimit", "1h")
    msg = raises_silt(silt.UnsupportedOptionException, lambda: spark.read.format("silt").load(table).count())
    assert "stalenessLimit" in msg and "a read of" in msg
    spark.conf.set("spark.databricks.delta.stalenessLimit", "0ms")
    assert spark.read.format("silt").load(table).count() == 10


@pytest.mark.full  # second tier: the reference's registry, read in a JVM of its own
def test_every_key_delta_lake_registers_is_classified(spark):
    """The reference's own registry, read from its jar: each key honoured, no effect or not implemented. Against
    Delta Lake 4.4 also: no key of the registry is not Delta Lake's (but those only Delta Lake 3.3 has, for
    Spark 3.5), and a key's default is the reference's."""
    from reference_delta import DELTA_PACKAGE
    settings = reference_delta_settings()
    if settings is None:
        pytest.skip("no reference Delta Lake release is built for this Spark minor")
    assert len(settings) > 200
    unclassified = sorted(k for k in settings if treatment(spark, k) is None)
    assert unclassified == [], f"Delta Lake's settings without a class in delta-settings.tsv: {unclassified}"
    if not DELTA_PACKAGE.endswith(":4.4.0"):
        return
    assert len(settings) > 300
    declared = registry(spark).declared()
    keys = [declared.apply(i) for i in range(declared.size())]
    older = [k for k in keys if k.meaning().startswith("(Delta Lake 3.3)")]
    assert len(older) == 7
    assert sorted(k.key() for k in keys if k.key() not in settings and k not in older) == []
    for k in keys:
        if k in older:
            assert k.key() not in settings, f"{k.key()} is Delta Lake 4.4's too: give it 4.4's default and meaning"
            continue
        default = k.deltaDefault().get() if k.deltaDefault().isDefined() else "<undefined>"
        expected = settings[k.key()]
        if expected.startswith("<value of "):  # a default that is another setting's
            expected = settings[expected[len("<value of "):-1]]
        assert default == expected, f"{k.key()}: Delta Lake's default is {expected}, the registry says {default}"


def test_the_last_commit_version_is_in_the_session_as_delta_lake_puts_it(spark, tmp_path):
    """Delta Lake sets spark.databricks.delta.lastCommitVersionInSession after each commit; programs read it."""
    key = "spark.databricks.delta.lastCommitVersionInSession"
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    try:
        spark.range(3).write.format("delta").save(a)
        assert spark.conf.get(key) == "0"
        spark.sql(f"DELETE FROM delta.`{a}` WHERE id = 1")
        assert spark.conf.get(key) == "1"
        spark.range(3).write.format("delta").save(b)  # any table's commit
        assert spark.conf.get(key) == "0"
        assert treatment(spark, key) == "honoured"
    finally:
        spark.conf.unset(key)
        spark.conf.unset("spark.silt.lastCommitVersionInSession")
