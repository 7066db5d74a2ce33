"""commits: commit latency and commits/s of small appends, on the local disk (hard-link commits)
and on a local S3 server (s3proxy; conditional-PUT commits through S3A), for one writer and for 4
writer processes racing for the same versions. A report, not a target: the S3 server runs on the
same 2 cores, so its figures say what the protocol costs, not what a cloud store would give.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time

from bench.common import REPO_ROOT, SCRATCH_DIR, measure_and_save, say

SCRATCH = SCRATCH_DIR / "commits"
sys.path[:0] = [str(REPO_ROOT / "tests")]


def append_one(spark, path, i):
    spark.createDataFrame([(0, i)], "writer int, n int").write.format("silt").mode("append").save(path)


def one_writer(spark, path, commits):
    """Median seconds of one append (one commit), and commits/s over `commits` of them."""
    append_one(spark, path, -1)  # creates the table
    times = []
    t0 = time.perf_counter()
    for i in range(commits):
        t = time.perf_counter()
        append_one(spark, path, i)
        times.append(time.perf_counter() - t)
    total = time.perf_counter() - t0
    return {"median_commit_seconds": statistics.median(times), "p90_commit_seconds": sorted(times)[int(len(times) * 0.9)],
            "commits_per_second": commits / total}


def racing_writers(spark, path, writers, commits_each, hadoop_conf, scratch):
    """4 processes appending `commits_each` each, started together: wall time, commits/s, rebased commits."""
    from conftest import python_env
    append_one(spark, path, -1)
    barrier = scratch / f"barrier-{abs(hash(path))}"
    barrier.mkdir(parents=True)
    procs = [subprocess.Popen([sys.executable, str(REPO_ROOT / "tests" / "s3_worker.py"), "append", path, str(w),
                               str(commits_each), json.dumps(hadoop_conf), str(barrier), str(writers)],
                              env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    starts, ends = [], []
    for p in procs:
        out, err = p.communicate(timeout=900)
        if p.returncode != 0:
            raise RuntimeError(err[-2000:])
        for line in out.splitlines():
            kind, _, value = line.partition(" ")
            (starts if kind == "started" else ends if kind == "finished" else []).append(float(value or 0))
    wall = max(ends) - min(starts)
    history = spark.sql(f"DESCRIBE HISTORY silt.`{path}`").collect()
    rebased = sum(1 for h in history if h["readVersion"] is not None and h["readVersion"] != h["version"] - 1)
    total = writers * commits_each
    rows = spark.read.format("silt").load(path).count()
    assert rows == total + 1, f"{rows} rows, expected {total + 1}"
    return {"writers": writers, "commits": total, "wall_seconds": wall, "commits_per_second": total / wall,
            "rebased_commits": rebased}


def bench_commits(spark, commits, racing_each):
    from s3server import S3Server
    server = S3Server.start(SCRATCH / "s3")
    try:
        for k, v in server.hadoop_conf().items():
            spark.conf.set(k, v)
        stores = {"local disk": lambda name: str(SCRATCH / name), "s3 (s3proxy)": lambda name: server.url(name)}
        single = {}
        for store, at in stores.items():
            single[store] = one_writer(spark, at("one"), commits)
            say(f"  one writer, {store}: median {single[store]['median_commit_seconds'] * 1000:.0f} ms, "
                f"{single[store]['commits_per_second']:.2f} commits/s")
        racing = {}
        for store, at in stores.items():
            racing[store] = racing_writers(spark, at("race"), 4, racing_each, server.hadoop_conf(), SCRATCH)
            say(f"  4 racing writers, {store}: {racing[store]['commits_per_second']:.2f} commits/s, "
                f"{racing[store]['rebased_commits']} rebased")
    finally:
        server.stop()
    return {"benchmark": "commits", "single_writer": single, "racing_writers": racing}


def parser():
    """The commits benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench commits", description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=40, help="appends of the single writer")
    ap.add_argument("--racing-each", type=int, default=10, help="appends of each of the 4 racing writers")
    return ap


def main(argv):
    """Runs the commits benchmark; writes results/commits.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_commits(spark, args.commits, args.racing_each), SCRATCH, storage="s3")


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = []
    for store, s in r["single_writer"].items():
        rows.append(("commits", f"one writer, {store}: median commit", f"{s['median_commit_seconds'] * 1000:.0f} ms"))
        rows.append(("commits", f"one writer, {store}", f"{s['commits_per_second']:.2f} commits/s"))
    for store, s in r["racing_writers"].items():
        rows.append(("commits", f"4 racing writers, {store}", f"{s['commits_per_second']:.2f} commits/s "
                     f"({s['rebased_commits']} of {s['commits']} rebased)"))
    return rows
