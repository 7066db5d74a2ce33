"""ALTER TABLE … DROP FEATURE … TRUNCATE HISTORY, Delta's two-step drop: the first run cleans up and
stops (FeatureInHistoryException), a run after delta.dropFeatureTruncateHistory.retentionDuration
deletes the older log and lowers the protocol without checkpointProtection; checkpointProtection
itself is dropped only this way, once the log before its protected version is gone."""
from pathlib import Path

import pytest

import silt
from test_drop_feature import commits, operations, protocol, rows
from test_writes import raises_silt


def features(path):
    proto = protocol(path)
    return set(proto.get("readerFeatures", []) + proto.get("writerFeatures", []))


def log_versions(path):
    return sorted(int(f.name[:20]) for f in Path(path, "_delta_log").glob("*.json"))


def dv_table(spark, path, retention):
    props = "delta.enableDeletionVectors = true"
    if retention is not None:
        props += f", delta.dropFeatureTruncateHistory.retentionDuration = '{retention}'"
    spark.sql(f"CREATE TABLE silt.`{path}` (id INT, v STRING) USING silt TBLPROPERTIES ({props})")
    spark.sql(f"INSERT INTO silt.`{path}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id = 2")


@pytest.mark.smoke
def test_truncate_history_drops_a_feature_in_two_steps(spark, tmp_path):
    p = str(tmp_path / "dv")
    dv_table(spark, p, "0 hours")
    drop = lambda: spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE deletionVectors TRUNCATE HISTORY")
    msg = raises_silt(silt.FeatureInHistoryException, drop)
    assert "deletionVectors" in msg and "delta.dropFeatureTruncateHistory.retentionDuration" in msg
    # first step: turned off, purged, an empty commit checkpointed; the protocol still has it
    assert operations(p)[-3:] == ["UNSET TBLPROPERTIES", "REORG", "Empty Commit"]
    empty = log_versions(p)[-1]
    assert Path(p, "_delta_log", f"{empty:020d}.checkpoint.parquet").exists()
    assert "deletionVectors" in features(p) and rows(spark, p) == [(1, "a"), (3, "c")]
    # second step: the history before the newest checkpoint is gone, the protocol lowered
    drop()
    assert operations(p)[-1] == "DROP FEATURE"
    info = commits(p)[-1][0]["commitInfo"]
    assert info["operationParameters"] == {"featureName": "deletionVectors", "truncateHistory": "true"}
    assert features(p) <= {"appendOnly", "invariants"} and protocol(p)["minReaderVersion"] == 1
    assert log_versions(p)[0] > empty and 0 not in log_versions(p)
    detail = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
    assert "delta.requireCheckpointProtectionBeforeVersion" not in detail.properties
    assert rows(spark, p) == [(1, "a"), (3, "c")]
    raises_silt(silt.VersionNotFoundException, lambda: rows(spark, p, version=1))
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (4, 'd')")
    assert rows(spark, p) == [(1, "a"), (3, "c"), (4, "d")]


@pytest.mark.full  # second tier; the smoke test above stays in make test
def test_truncate_history_waits_for_the_retention(spark, tmp_path):
    """With the default 24 hours, a second run deletes nothing and refuses: versions it keeps use the feature."""
    p = str(tmp_path / "dv")
    dv_table(spark, p, None)
    drop = lambda: spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE deletionVectors TRUNCATE HISTORY")
    raises_silt(silt.FeatureInHistoryException, drop)
    versions = log_versions(p)
    msg = raises_silt(silt.FeatureInHistoryException, drop)
    assert "versions the log keeps use it" in msg and "interval 24 hours" in msg
    # each run checkpoints an empty commit, nothing else; the history and the feature stay
    assert log_versions(p) == versions + [versions[-1] + 1] and operations(p)[-1] == "Empty Commit"
    assert "deletionVectors" in features(p) and rows(spark, p, version=2) == [(1, "a"), (3, "c")]


def test_checkpoint_protection_is_dropped_with_the_history_before_it(spark, tmp_path):
    p = str(tmp_path / "cp")
    dv_table(spark, p, "interval 1 day")
    spark.sql(f"ALTER TABLE silt.`{p}` DROP FEATURE deletionVectors")
    protected = int(spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
                    .properties["delta.requireCheckpointProtectionBeforeVersion"])
    drop = f"ALTER TABLE silt.`{p}` DROP FEATURE checkpointProtection"
    msg = raises_silt(silt.errors.InvalidTableOperationException, lambda: spark.sql(drop))
    assert "only with TRUNCATE HISTORY" in msg
    # the log before the protected version is younger than a day: refused, nothing deleted
    msg = raises_silt(silt.FeatureInHistoryException, lambda: spark.sql(drop + " TRUNCATE HISTORY"))
    assert f"protected version {protected}" in msg and log_versions(p)[0] == 0
    assert "checkpointProtection" in features(p)
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.dropFeatureTruncateHistory.retentionDuration = '0 hours')")
    spark.sql(drop + " TRUNCATE HISTORY")
    assert "checkpointProtection" not in features(p) and log_versions(p)[0] >= protected
    assert operations(p)[-1] == "DROP FEATURE"
    detail = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
    assert "delta.requireCheckpointProtectionBeforeVersion" not in detail.properties
    assert rows(spark, p) == [(1, "a"), (3, "c")]


def test_truncate_history_is_refused_for_writer_features(spark, tmp_path):
    """A writer feature leaves nothing readers of the history need (Delta refuses the option too)."""
    p = str(tmp_path / "ict")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableInCommitTimestamps = true)")
    msg = raises_silt(silt.errors.InvalidTableOperationException, lambda: spark.sql(
        f"ALTER TABLE silt.`{p}` DROP FEATURE inCommitTimestamp TRUNCATE HISTORY"))
    assert "inCommitTimestamp" in msg and "without TRUNCATE HISTORY" in msg
    assert len(commits(p)) == 1
