"""What the benchmarks share: paths, the benchmark SparkSession, timing and reporting helpers.

Imports nothing from the other bench modules, so that any of them can import it at load time.
"""
import datetime as dt
import hashlib
import json
import os
import platform
import subprocess
import shutil
import sys
import time
from contextlib import contextmanager
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
SCRATCH_DIR = RESULTS_DIR / "tmp"


def build_spark(extra_conf=None):
    """The benchmarks' SparkSession: local[2], driver memory 4g, 8 shuffle partitions, no UI."""
    sys.path.insert(0, str(REPO_ROOT / "python"))
    import silt
    from pyspark.sql import SparkSession
    builder = (SparkSession.builder.master("local[2]").appName("silt-bench")
               .config("spark.driver.memory", "4g")
               .config("spark.sql.shuffle.partitions", "8")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.warehouse.dir", str(SCRATCH_DIR / "warehouse")))
    for k, v in (extra_conf or {}).items():
        builder = builder.config(k, v)
    spark = silt.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def bench_session(scratch):
    """The benchmark SparkSession with an empty scratch folder; both gone afterwards."""
    rm(scratch)
    Path(scratch).mkdir(parents=True)
    spark = build_spark()
    try:
        yield spark
    finally:
        spark.stop()
        rm(scratch)


def files_scanned(spark, df):
    return int(spark._jvm.io.silt.read.ScanMetrics.filesScanned(df._jdf))


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def alternating(items, i):
    """`items` in order in even rounds and reversed in odd ones, so that no side always goes first."""
    items = list(items)
    return items if i % 2 == 0 else items[::-1]


def rm(path):
    shutil.rmtree(path, ignore_errors=True)


def say(msg):
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


def save_result(result, env):
    """Writes bench/results/<benchmark>.json (with the environment) and returns its path."""
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    result = dict(result, environment=env)
    path = RESULTS_DIR / f"{result['benchmark']}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
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


BUSY = 0.10  # other processes used more than this share of the CPUs during a timed run


def busy_runs(labelled):
    """[(label, run accounting)] -> the labels of the runs during which the machine was busy."""
    return [f"{label} ({a['other_load']:.0%})" for label, a in labelled if a["other_load"] > BUSY]


def busy_rows(benchmark, result):
    """The closing table's warning row for runs made on a busy machine (none when there were none)."""
    if not result.get("busy_machine_runs"):
        return []
    return [(benchmark, f"WARNING: other processes used > {BUSY:.0%} of the CPUs during (seconds not comparable)",
             ", ".join(result["busy_machine_runs"]))]


def finish(result, env, summary_rows):
    """The end of a benchmark script: saves its JSON, prints its table; returns the exit code."""
    say(f"  -> {save_result(result, env)}\n")
    print("\n".join(table_lines([("benchmark", "measure", "value")] + summary_rows(result))))
    say(f"\ntotal {result['total_seconds']:.0f} s")
    return 0


def environment():
    """What a result was measured with: when, git commit, the Silt jar, Spark, the machine."""
    import pyspark
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    jars = sorted((REPO_ROOT / "python" / "silt" / "jars").glob("silt-spark_*.jar"))
    jar = {"name": jars[-1].name, "sha256_12": hashlib.sha256(jars[-1].read_bytes()).hexdigest()[:12],
           "mtime": dt.datetime.fromtimestamp(jars[-1].stat().st_mtime, dt.timezone.utc).isoformat(timespec="seconds")
           } if jars else None
    return {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": commit, "silt_jar": jar, "spark": pyspark.__version__, "master": "local[2]",
            "cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}
