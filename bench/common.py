"""What the benchmarks share: paths, the one benchmark SparkSession, timing, files and results.

Imports nothing from the other bench modules, so that any of them can import it.
"""
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
SCRATCH_DIR = RESULTS_DIR / "tmp"  # git-ignored; removed at the end of `python -m bench`
INTEROP_DIR = REPO_ROOT / "tests" / "interop"
MASTER = "local[2]"

# The same in every JVM of every benchmark, whichever engine it runs.
SESSION_CONF = {
    "spark.driver.memory": "4g",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
}
ENGINES = ("silt", "delta")  # delta: the reference Delta Lake (delta-spark from Maven Central)


def delta_package():
    """The reference Delta Lake's Maven coordinates: the interop tests' (one place to change them)."""
    sys.path.insert(0, str(INTEROP_DIR))
    from reference_delta import DELTA_PACKAGE
    return DELTA_PACKAGE


def build_spark(engine="silt", extra_conf=None, storage=None):
    """The benchmarks' SparkSession (local[2], SESSION_CONF) with Silt (and `storage`'s jars) or the reference Delta Lake."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.master(MASTER).appName(f"silt-bench-{engine}")
    conf = dict(SESSION_CONF, **{"spark.sql.warehouse.dir": str(SCRATCH_DIR / f"warehouse-{engine}")})
    for k, v in dict(conf, **(extra_conf or {})).items():
        builder = builder.config(k, v)
    if engine == "silt":
        import silt
        builder = silt.configure(builder, storage=storage)
    elif engine == "delta":
        builder = (builder.config("spark.jars.packages", delta_package())
                   .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
                   .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
    else:
        raise ValueError(f"unknown engine {engine!r}, expected one of {ENGINES}")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def bench_session(scratch, engine="silt", extra_conf=None, storage=None):
    """The benchmark SparkSession with an empty scratch folder; both gone afterwards."""
    rm(scratch)
    Path(scratch).mkdir(parents=True)
    spark = build_spark(engine, extra_conf, storage)
    try:
        yield spark
    finally:
        spark.stop()
        rm(scratch)


def measure_and_save(measure, scratch=None, storage=None, name=None):
    """Runs measure() (or measure(spark) in a fresh Silt session and scratch folder when `scratch`
    is given), saves its result with the total seconds and the environment
    (bench/results/<name>.json, by default <benchmark>.json), and returns it."""
    t0 = time.perf_counter()
    env = environment()
    if scratch is None:
        result = measure()
    else:
        with bench_session(scratch, storage=storage) as spark:
            result = measure(spark)
    result["total_seconds"] = time.perf_counter() - t0
    save_result(result, env, name)
    return result


def timed(fn):
    """(seconds, result) of calling fn()."""
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def geomean(xs):
    """The geometric mean of positive numbers (times of queries, say); NaN for none."""
    import math
    return math.exp(sum(math.log(max(x, 1e-6)) for x in xs) / len(xs)) if xs else float("nan")


def alternating(items, i):
    """`items` in order in even rounds and reversed in odd ones, so that no side always goes first."""
    items = list(items)
    return items if i % 2 == 0 else items[::-1]


def rm(path):
    """Removes a folder tree, if there is one."""
    shutil.rmtree(path, ignore_errors=True)


def say(msg):
    """Prints a progress line at once (the parent process shows it as it comes)."""
    print(msg, flush=True)


def link_copy(src, dst):
    """A copy of a table folder made of hard links: instant, byte-identical, and at a path the
    engine has never seen (Silt caches a table's log and latest snapshot per path in the JVM)."""
    rm(dst)
    shutil.copytree(src, dst, copy_function=lambda s, d: Path(d).hardlink_to(s))
    return dst


def folder_stats(path, pattern="*"):
    """(number of files, bytes) of the files matching `pattern` directly in `path`."""
    files = [p for p in Path(path).glob(pattern) if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def save_result(result, env, name=None):
    """Writes bench/results/<name>.json (by default <benchmark>.json, with the environment) and returns its path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    result = dict(result, environment=env)
    path = RESULTS_DIR / f"{name or result['benchmark']}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    say(f"  -> {path}")
    return path


def table_lines(rows):
    """Rows of strings as aligned columns, a rule under the first (the header)."""
    w = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for j, row in enumerate(rows):
        lines.append("  ".join(str(c).ljust(w[i]) for i, c in enumerate(row)).rstrip())
        if j == 0:
            lines.append("  ".join("-" * x for x in w))
    return lines


def environment():
    """What a result was measured with: when, git commit, the Silt jar the run loads (silt.jar_path), Spark, the machine."""
    import pyspark
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    import silt
    try:
        path = silt.jar_path()  # the jar silt.configure adds for this pyspark, not the newest in the folder
        jar = {"name": path.name, "sha256_12": hashlib.sha256(path.read_bytes()).hexdigest()[:12],
               "mtime": dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc).isoformat(timespec="seconds")}
    except silt.UnsupportedSparkVersionException:
        jar = None  # no jar for this Spark: no Silt session can have started
    return {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": commit, "silt_jar": jar, "spark": pyspark.__version__, "master": MASTER,
            "cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}
