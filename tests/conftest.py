"""Shared pytest setup: the Silt SparkSession, the conformance corpus, small helpers.

Test modules import the helpers with `from conftest import ...` (pytest puts this folder on
sys.path). Everything that locates things outside tests/ lives here, once:

- REPO_ROOT: the repository (the folder above tests/).
- CONFORMANCE_DIR: the Delta conformance corpus, tests/conformance/ (env SILT_CONFORMANCE_DIR may
  point at a larger one laid out the same way); CANON_PY: the canonical row renderer, always ours.
- silt_jar(): the engine jar bundled in python/silt/jars/.
- concurrently(): two operations interleaved by the engine's commit pause hook.
- needs_spark(minor, what), needs_spark_4(what): skip a test on a pyspark older than `minor` (3.5), which lacks `what`.
- reference_delta_settings(): every session setting the reference Delta Lake registers, with its default.

With env SILT_DELTA_DEFAULTS=1 the session fixture sets every such setting that has a default to it,
but for Silt's own settings under Delta's names (`make test-delta-defaults`): a Delta Lake deployment's
session, as its code would run on Silt.
"""
import os
import sys
import threading
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
INTEROP_DIR = TESTS_DIR / "interop"


sys.path.insert(0, str(TESTS_DIR / "conformance"))
sys.path.insert(0, str(INTEROP_DIR))  # reference_delta
import corpus  # noqa: E402

CONFORMANCE_DIR = corpus.corpus_dir()
CANON_PY = TESTS_DIR / "conformance" / "canon.py"


def load_canon():
    """tests/conformance/canon.py (render_table, digest, canonical_json)."""
    import canon
    return canon


def needs_spark(minor, what):
    """Skips a test on a pyspark older than `minor` (such as "4.1"), which lacks `what` (Silt refuses it by name there)."""
    import pyspark
    running = tuple(int(x) for x in pyspark.__version__.split(".")[:2])
    return pytest.mark.skipif(running < tuple(int(x) for x in minor.split(".")),
                              reason=f"Spark {'.'.join(map(str, running))} has no {what}")


def needs_spark_4(what):
    """Skips a test on pyspark 3.5 for `what`, a Spark 4 capability Spark 3.5 lacks."""
    return needs_spark("4.0", what)


def silt_jar():
    """The engine jar for the installed pyspark, or None when it is not built."""
    import silt
    try:
        return silt.jar_path()
    except silt.UnsupportedSparkVersionException:
        return None


def python_env():
    """Environment for child Python processes: the same interpreter sees the silt package and tests/."""
    env = dict(os.environ)
    extra = [str(REPO_ROOT / "python"), str(TESTS_DIR), str(INTEROP_DIR)]
    env["PYTHONPATH"] = os.pathsep.join(extra + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    return env


# Session settings shared by the in-process session and the subprocess scenarios.
SPARK_TEST_CONF = {
    "spark.sql.shuffle.partitions": "4",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.memory": "2g",
    # The JIT's first tier only: a test session runs many short queries, and C2's compile work on 2
    # cores cost more than it gave back (measured: 4 modules, 69 tests, 6-7% faster in two runs
    # each; the core suite 617 s against 640 s). That tier alone gets a 48 MiB code cache, which a
    # session running a whole suite filled (the JVM then died: "Out of space in CodeCache"): 256 MiB.
    "spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=256m",
}


def build_silt_session(master="local[2]", warehouse=None, extra_conf=None, storage=None):
    import silt
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName("silt-tests")
    for k, v in SPARK_TEST_CONF.items():
        builder = builder.config(k, v)
    if warehouse is not None:
        builder = builder.config("spark.sql.warehouse.dir", str(warehouse))
    for k, v in (extra_conf or {}).items():
        builder = builder.config(k, v)
    return silt.configure(builder, storage=storage).getOrCreate()


def s3_supported():
    """Whether the installed pyspark's Hadoop can commit to S3 (conditional create: Hadoop 3.4.2 and
    later; Spark 4.0 ships 3.4.1, on which silt.configure refuses storage="s3")."""
    from silt.session import AWS_SDK_FOR_HADOOP, hadoop_version
    return hadoop_version() in AWS_SDK_FOR_HADOOP


DELTA_SETTING_PREFIXES = ["spark.databricks.delta.", "spark.databricks.io.skipping."]


def reference_delta_settings():
    """{key: default as Spark renders it} of every Delta Lake setting the reference registers (its own
    process); None when no reference release is built for the installed pyspark's minor."""
    from reference_delta import DELTA_PACKAGE, call
    if DELTA_PACKAGE is None:
        return None
    [res] = call([{"op": "settings", "prefixes": DELTA_SETTING_PREFIXES}], CANON_PY, 600, env=python_env())
    assert res["ok"], res.get("error")
    return res["settings"]


def delta_defaults_to_set(spark):
    """The reference's settings that have a default (`<undefined>` and `<value of …>` have none), each with
    it, but for those that are Silt settings under Delta's name: a test setting Silt's key to another value
    would set one setting to two (refused by design; test_delta_settings.py tests those names)."""
    registry = spark._jvm.io.silt.config.DeltaSessionKeys
    def honoured(k):
        t = registry.treatmentOf(k)
        return t.isDefined() and t.get().name() == "honoured"
    return {k: v for k, v in (reference_delta_settings() or {}).items() if not v.startswith("<") and not honoured(k)}


@pytest.fixture(scope="session")
def spark(tmp_path_factory):
    if silt_jar() is None:
        pytest.fail("the Silt jar is not built: python/silt/jars/silt-spark_*.jar is missing "
                    "(run `make jar`)")
    warehouse = tmp_path_factory.mktemp("warehouse")
    # with S3A and the AWS SDK on the classpath, for the tests on the local S3 server (test_s3.py)
    session = build_silt_session(warehouse=warehouse, storage="s3" if s3_supported() else None)
    session.sparkContext.setLogLevel("WARN")
    if os.environ.get("SILT_DELTA_DEFAULTS"):
        for k, v in delta_defaults_to_set(session).items():
            session.conf.set(k, v)
    yield session
    session.stop()


@pytest.fixture
def setting(spark):
    """Sets a session setting for one test and puts it back afterwards (unset, or its earlier value), whatever happens."""
    before = {}

    def set_(key, value):
        if key not in before:
            before[key] = spark.conf.get(key, None)
        spark.conf.set(key, value)
    yield set_
    for k, v in before.items():
        if v is None:
            spark.conf.unset(k)
        else:
            spark.conf.set(k, v)


@pytest.fixture(scope="session")
def canon():
    return load_canon()


def files_scanned(spark, df):
    """Runs `df` and returns how many data files its Silt scans read (after pruning and skipping)."""
    return int(spark._jvm.io.silt.read.ScanMetrics.filesScanned(df._jdf))


def concurrently(spark, path, first, second):
    """Runs `first` up to its commit, then `second` whole, then lets `first` commit; returns first's error or None."""
    from silt.errors import translate

    pause = spark._jvm.io.silt.txn.CommitPause
    pause.arm(path)
    outcome = {}

    def run_first():
        try:
            first()
            outcome["error"] = None
        except Exception as e:  # noqa: BLE001 - the test inspects it
            outcome["error"] = translate(e) or e

    thread = threading.Thread(target=run_first)
    thread.start()
    try:
        waited = 0
        while not pause.awaitPaused(path, 1):
            waited += 1
            assert thread.is_alive() and waited < 120, f"the first operation never reached its commit: {outcome}"
        second()
    finally:
        pause.release(path)
        thread.join(300)
    assert not thread.is_alive()
    return outcome["error"]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "full: the second tier (`make test-full`, which CI also runs): interop matrices, reliability, "
        "the fresh clone and the wheel; `make test` leaves them out")
    config.addinivalue_line(
        "markers", "slow: heavy tests that `make reliability` and `make test-full` run and `make test` leaves out")
    config.addinivalue_line(
        "markers", "smoke: the subset `make test-versions` runs on every other Spark minor (write, read with "
        "DVs, DELETE/MERGE, OPTIMIZE ZORDER, CHECKPOINT, VACUUM, the conformance corpus, the reference)")
    config.addinivalue_line(
        "markers", "server: a smoke test that starts a Spark Connect server (a JVM of its own): the second tier runs it "
        "on the default minor and on the other minors that have a Connect plugin")
    config.addinivalue_line(
        "markers", "reference: a test that runs the reference Delta Lake (a JVM of its own): marked full too, so that "
        "the second tier runs it (on the default minor, and the smoke ones on the others)")
