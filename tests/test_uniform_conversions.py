"""UniForm's conversions: the Delta log stays the one source of truth. A conversion that fails leaves the commit
standing and the next commit (or MSCK REPAIR TABLE … SYNC METADATA) catches up; by default conversions run in the
background after the statement, one at a time per table, a conversion that lost a race to an older version converts
again, and the JVM's exit waits for one in progress. make test runs the catch-up and the background run; the
rest is the second tier's."""
import json

import pytest

from silt.errors import InvalidTableOperationException
from test_uniform import (SYNC, UNIFORM, assert_iceberg_reads_as_silt, converted_before_returning,  # noqa: F401 - a fixture
                          iceberg_table, metadata_files)


def conversions(spark):
    return spark._jvm.io.silt.uniform.IcebergConversions


def conversion_pause(spark):
    return spark._jvm.io.silt.uniform.ConversionPause


def test_a_failed_conversion_keeps_the_commit_and_the_next_catches_up(spark, tmp_path):
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    # a metadata file that does not parse where the next version goes: the conversion cannot read the table's
    # Iceberg state, so it writes nothing; the Delta commit stands and the statement succeeds
    broken = path / "metadata" / f"v{len(metadata_files(path)) + 1}.metadata.json"
    broken.write_text("{ not json")
    spark.sql(f"INSERT INTO {t} VALUES (2)")
    spark.sql(f"INSERT INTO {t} VALUES (3)")
    assert spark.read.format("silt").load(str(path)).count() == 3
    assert iceberg_table(path).metadata.properties["delta-version"] == "1"
    broken.unlink()
    spark.sql(f"MSCK REPAIR TABLE {t} SYNC METADATA")
    assert_iceberg_reads_as_silt(spark, path, "MSCK REPAIR TABLE … SYNC METADATA")
    spark.sql(f"INSERT INTO {t} VALUES (4)")
    assert_iceberg_reads_as_silt(spark, path, "the next commit")
    with pytest.raises(InvalidTableOperationException, match="delta.universalFormat.enabledFormats"):
        spark.sql(f"CREATE TABLE delta.`{tmp_path / 'plain'}` (id INT) USING delta")
        spark.sql(f"MSCK REPAIR TABLE delta.`{tmp_path / 'plain'}` SYNC METADATA")


def test_conversions_run_after_the_statement(spark, tmp_path):
    """By default, as in Delta Lake, a commit's conversion runs in the background: the statement returns before it
    ends; commits made while it runs are converted together once it has ended (the newest of them)."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
    spark.conf.unset(SYNC)
    pause = conversion_pause(spark)
    pause.arm(str(path))
    try:
        spark.sql(f"INSERT INTO {t} VALUES (1)")
        assert pause.awaitPaused(str(path), 60), "the conversion of version 1 never started"
        # the statement has returned; its conversion waits
        assert iceberg_table(path).metadata.properties["delta-version"] == "0"
        spark.sql(f"INSERT INTO {t} VALUES (2)")
        spark.sql(f"INSERT INTO {t} VALUES (3)")
    finally:
        pause.release(str(path))
    assert conversions(spark).awaitIdle(str(path), 120000)
    assert_iceberg_reads_as_silt(spark, path, "the conversions in the background")
    versions = [s.summary["delta-version"] for s in iceberg_table(path).metadata.snapshots]
    assert versions == ["0", "1", "3"], "version 2, committed while version 1 converted, is converted with 3"


@pytest.mark.full
def test_a_conversion_that_lost_a_race_to_an_older_version_converts_again(spark, tmp_path):
    """Version 2's conversion reads the metadata of version 0 and is held before writing; version 1's (held after
    its commit until then) writes the next metadata file first: version 2's finds the file taken by an older
    Delta version, and converts again on top of it."""
    import threading
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
    first_metadata = len(metadata_files(path))
    commit_pause, pause = spark._jvm.io.silt.txn.CommitPause, conversion_pause(spark)
    errors = []

    def insert(v):
        try:
            spark.sql(f"INSERT INTO {t} VALUES ({v})")
        except Exception as e:  # noqa: BLE001 - asserted below
            errors.append(e)

    commit_pause.armAfterCommit(str(path))
    one = threading.Thread(target=insert, args=(1,))
    one.start()
    two = None
    try:
        assert commit_pause.awaitPaused(str(path), 120), "version 1 never committed"
        pause.arm(str(path))
        two = threading.Thread(target=insert, args=(2,))
        two.start()
        assert pause.awaitPaused(str(path), 120), "version 2's conversion never started"
    finally:
        commit_pause.release(str(path))
        one.join(300)
        pause.release(str(path))
        if two:
            two.join(300)
    assert not errors
    files = metadata_files(path)
    assert len(files) == first_metadata + 2
    written = [json.load(open(f)) for f in files[-2:]]
    assert [m["properties"]["delta-version"] for m in written] == ["1", "2"]
    assert written[1]["snapshots"][-1]["parent-snapshot-id"] == written[0]["current-snapshot-id"]
    assert_iceberg_reads_as_silt(spark, path, "the race")


@pytest.mark.full
def test_the_exit_waits_for_a_conversion_in_progress(tmp_path):
    """A job that exits right after its last commit leaves Iceberg readers that commit: the JVM's exit waits for
    the conversion (here held until the exit has begun)."""
    import subprocess
    import sys
    from conftest import python_env
    path = tmp_path / "t"
    script = tmp_path / "job.py"
    script.write_text(f"""
import silt
from pyspark.sql import SparkSession
spark = silt.configure(SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")).getOrCreate()
spark.conf.set("{SYNC}", "true")
spark.sql("CREATE TABLE delta.`{path}` (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
spark.conf.unset("{SYNC}")
pause = spark._jvm.io.silt.uniform.ConversionPause
pause.arm("{path}")
spark.sql("INSERT INTO delta.`{path}` VALUES (1)")
assert pause.awaitPaused("{path}", 60)
pause.releaseWhenExitWaits("{path}")
print("JVM", spark._jvm.java.lang.ProcessHandle.current().pid(), flush=True)
""")
    r = subprocess.run([sys.executable, str(script)], env=python_env(), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    jvm = int(next(line for line in r.stdout.splitlines() if line.startswith("JVM ")).split()[1])
    import time
    deadline = time.monotonic() + 180

    def running():
        try:
            with open(f"/proc/{jvm}/stat") as f:
                return f.read().split(") ")[-1][0] != "Z"
        except FileNotFoundError:
            return False
    while running() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not running(), "the JVM did not exit"
    assert iceberg_table(path).metadata.properties["delta-version"] == "1"
