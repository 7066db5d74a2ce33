"""Silt's errors carry Delta Lake's error class and SQLSTATE (getCondition / getErrorClass,
getSqlState) where Delta Lake raises an error for the same failure, and arrive in Python as the
Silt exception of the same name from any call: code written to catch Delta Lake's errors catches
Silt's. The reference test runs each failing program on the reference Delta Lake too."""
import pytest

import silt
from silt.delta.exceptions import ConcurrentModificationException
from test_interop import run_reference

# Programs that fail, each with the exception Silt raises, run with `spark`, `path` (a table of ids
# 0..4 with a CHECK constraint and a NOT NULL column) and `empty` (a folder without a table).
SETUP = """
import os
os.makedirs(empty, exist_ok=True)
spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT NOT NULL, v INT) USING delta")
spark.sql(f"INSERT INTO delta.`{path}` SELECT id, 1 FROM range(5)")
spark.sql(f"ALTER TABLE delta.`{path}` ADD CONSTRAINT positive CHECK (v > 0)")
"""
FAILURES = {
    "not_a_table": ("spark.sql(f'VACUUM delta.`{empty}`').collect()", "NotADeltaTableException"),
    "timestamp_before_first_commit": (
        "spark.read.format('delta').option('timestampAsOf', '2000-01-01').load(path).count()", "VersionNotFoundException"),
    "timestamp_after_latest_commit": (
        "spark.read.format('delta').option('timestampAsOf', '2999-01-01').load(path).count()", "VersionNotFoundException"),
    "version_not_found": ("spark.read.format('delta').option('versionAsOf', 99).load(path).count()",
                          "VersionNotFoundException"),
    "check_constraint": ("spark.sql(f'INSERT INTO delta.`{path}` VALUES (9, -1)')", "ConstraintViolationException"),
    "not_null": ("spark.sql(f'INSERT INTO delta.`{path}` VALUES (NULL, 1)')", "ConstraintViolationException"),
    "unknown_table_property": (
        "spark.sql(f\"ALTER TABLE delta.`{path}` SET TBLPROPERTIES ('delta.enableDeletionVector' = 'true')\")",
        "UnsupportedOptionException"),
    # the commit stands; its symlink manifests cannot be written (a file where their folder goes)
    "post_commit_hook": (
        "(spark.sql(f\"ALTER TABLE delta.`{path}` SET TBLPROPERTIES "
        "('delta.compatibility.symlinkFormatManifest.enabled' = 'true')\"), "
        "__import__('shutil').rmtree(path + '/_symlink_format_manifest', True), "
        "open(path + '/_symlink_format_manifest', 'w').close(), "
        "spark.sql(f'INSERT INTO delta.`{path}` VALUES (7, 1)'))", "PostCommitHookFailedException"),
}
# Delta Lake raises some errors (constraint violations) as the raw JVM exception: its class is asked there.
CATCH = ("\ntry:\n    {call}\n    result = None\nexcept Exception as e:\n"
         "    e = getattr(e, 'java_exception', e)\n"
         "    result = ((e.getCondition() or '').split('.')[0], e.getSqlState())\n")

EXPECTED = {
    "not_a_table": ("DELTA_MISSING_DELTA_TABLE", "42P01"),
    "version_not_found": ("DELTA_VERSION_NOT_FOUND", "22003"),
    "timestamp_before_first_commit": ("DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION", "42816"),
    "timestamp_after_latest_commit": ("DELTA_TIMESTAMP_GREATER_THAN_COMMIT", "42816"),
    "check_constraint": ("DELTA_VIOLATE_CONSTRAINT_WITH_VALUES", "23001"),
    "not_null": ("DELTA_NOT_NULL_CONSTRAINT_VIOLATED", "23502"),
    "unknown_table_property": ("DELTA_UNKNOWN_CONFIGURATION", "F0000"),
    "post_commit_hook": ("DELTA_POST_COMMIT_HOOK_FAILED", "2DKD0"),
}


def run_failure(spark, tmp_path, name):
    scope = {"spark": spark, "path": str(tmp_path / name), "empty": str(tmp_path / "empty")}
    exec(SETUP, scope)
    call, _ = FAILURES[name]
    try:
        eval(call, scope)
    except silt.SiltException as e:  # a plain PySpark call raises Silt's exception itself
        return e
    pytest.fail(f"{name} did not fail")


@pytest.mark.parametrize("name", sorted(FAILURES))
def test_plain_calls_raise_the_silt_exception_with_delta_lake_error_class(spark, tmp_path, name):
    error = run_failure(spark, tmp_path, name)
    assert type(error).__name__ == FAILURES[name][1]
    assert (error.getCondition(), error.getSqlState()) == EXPECTED[name]
    assert error.getErrorClass() == error.getCondition()


def test_engine_errors_are_spark_throwables_with_delta_lake_classes(spark):
    errors = spark._jvm.io.silt.errors
    e = errors.ConcurrentAppendException("files were added")
    assert spark._jvm.java.lang.Class.forName("org.apache.spark.SparkThrowable").isInstance(e)
    # Spark 3.5's SparkThrowable has an error class and no condition
    condition = e.getErrorClass() if spark.version.startswith("3.") else e.getCondition()
    assert (e.getErrorClass(), condition, e.getSqlState()) == ("DELTA_CONCURRENT_APPEND",) * 2 + ("2D521",)
    assert e.getMessage() == "[DELTA_CONCURRENT_APPEND] [ConcurrentAppendException] files were added SQLSTATE: 2D521"
    own = errors.InvalidTableOperationException("no", None)
    assert own.getErrorClass().startswith("SILT_") and len(own.getSqlState()) == 5


def test_delta_lake_exception_names_catch_silt_conflicts():
    error = silt.errors.translate(Exception(
        "[DELTA_CONCURRENT_APPEND] [ConcurrentAppendException] files were added SQLSTATE: 2D521"))
    assert isinstance(error, ConcurrentModificationException)
    assert (error.getCondition(), error.getSqlState(), str(error)) == ("DELTA_CONCURRENT_APPEND", "2D521", "files were added")


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_raises_the_same_error_classes(tmp_path):
    ops = [{"op": "api", "code": f"path = {str(tmp_path / name)!r}\nempty = {str(tmp_path / 'empty')!r}\n" + SETUP +
            CATCH.format(call=call)} for name, (call, _) in FAILURES.items()]
    for name, res in zip(FAILURES, run_reference(ops)):
        assert res["ok"], res["error"]
        assert res["result"] == repr(EXPECTED[name]), name
