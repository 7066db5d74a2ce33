"""Silt benchmarks: ratios measured side by side in one run, on one SparkSession.

  write      the same DataFrame written with plain `df.write.parquet` (the floor: the same
             physical Parquet work, no log, no statistics) and with `df.write.format("silt")`
             (log + per-file statistics), alternating, REPS times each after a warm-up; reports
             the median of the per-pair ratios silt/parquet (target <= 1.15).
  skipping   a table sorted by `key` and written as ~100 files; a selective query on `key`
             timed with data skipping on and off (`spark.silt.stats.skipping.enabled`),
             alternating; reports the files each scan reads and the time ratio off/on.
  optimize   OPTIMIZE ... ZORDER BY (bench/optimize_bench.py, run first, in child processes of
             its own so that only one JVM runs at a time): the files a 1% range / box predicate
             must scan after Silt's ZORDER, a linear sort, delta-rs and the reference Delta Lake
             (from the log's statistics), and the time of Silt's OPTIMIZE against the plain-Spark
             floor and the reference Delta Lake.
  dv         deletion vectors (bench/dv_bench.py, a child process): DELETE of 0.1% scattered rows
             with DVs against copy-on-write (target >= 10x faster), and a full scan of the DV
             table against the same rows without DVs (target <= 1.1x).
  checkpoint (bench/checkpoint_bench.py, two child processes): opening the latest snapshot of a
             long log (10,000 commits, or as many as INSERTs make in the time budget) against a
             100-commit log (target <= 1.5x); CHECKPOINT of tables of 5,000 and 20,000 files;
             CHECKPOINT of a synthetic 1,000,000-file log (bench/checkpoint_million.py).

Results: bench/results/<benchmark>.json and a table on stdout. Scratch tables go to
bench/results/tmp/ (ignored by git) and are removed afterwards.

    .venv/bin/python bench/run.py [--rows N] [--reps R] [--only write|skipping|optimize|dv|checkpoint]

The write and skipping benchmarks take under ~5 minutes on 2 cores with the defaults, the
optimize benchmark about 7 more, dv about 4 and checkpoint about 8 (open) + 3 (write).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# bench/common.py: what the benchmarks share (optimize_bench's worker uses build_spark from here)
from common import (BENCH_DIR, RESULTS_DIR, SCRATCH_DIR, alternating, build_spark, environment, files_scanned,  # noqa: E402,F401
                    rm, save_result, table_lines, timed)
import checkpoint_bench  # noqa: E402
import checkpoint_million  # noqa: E402
import dv_bench  # noqa: E402
import optimize_bench  # noqa: E402  (bench/optimize_bench.py: imports nothing from here at load time)

# The benchmarks that run as child processes of their own (one JVM at a time): result name -> module.
CHILD_BENCHMARKS = {"optimize": optimize_bench, "dv": dv_bench,
                    "checkpoint_open": checkpoint_bench, "checkpoint_write": checkpoint_bench,
                    "checkpoint_million": checkpoint_million}

WRITE_TARGET_RATIO = 1.15
SKIPPING_CONF = "spark.silt.stats.skipping.enabled"


# ------------------------------------------------------------------ (a) write throughput

def write_frame(spark, rows, partitions=8):
    """A handful of mixed-type columns, deterministic, generated from spark.range."""
    return spark.range(0, rows, 1, partitions).selectExpr(
        "id",
        "CAST(id % 1000 AS INT) AS k_int",
        "CAST(id * 0.37 AS DOUBLE) AS amount",
        "CAST((id % 100000) / 100.0 AS DECIMAL(10,2)) AS price",
        "concat('user_', CAST(id % 50000 AS STRING)) AS user",
        "date_add(DATE'2020-01-01', CAST(id % 1500 AS INT)) AS day",
        "TIMESTAMP_SECONDS(1600000000 + id) AS ts",
        "id % 7 = 0 AS flag",
    )


def bench_write(spark, rows, reps):
    base = SCRATCH_DIR / "write"
    rm(base)
    writers = {
        "parquet": lambda df, p: df.write.mode("error").parquet(str(p)),
        "silt": lambda df, p: df.write.format("silt").mode("error").save(str(p)),
    }
    # Warm-up (JIT, class loading, the first Silt commit), not counted.
    for kind, w in writers.items():
        p = base / f"warmup-{kind}"
        w(write_frame(spark, max(rows // 10, 1000)), p)
        rm(p)
    times = {k: [] for k in writers}
    for i in range(reps):
        order = alternating(writers, i)  # alternate who goes first
        for kind in order:
            p = base / f"{kind}-{i}"
            secs, _ = timed(lambda: writers[kind](write_frame(spark, rows), p))
            times[kind].append(secs)
            print(f"  write {kind:8s} rep {i}: {secs:6.2f} s", flush=True)
            rm(p)
    ratios = [s / q for s, q in zip(times["silt"], times["parquet"])]
    ratio = statistics.median(ratios)
    return {
        "benchmark": "write",
        "rows": rows,
        "reps": reps,
        "seconds": times,
        "median_seconds": {k: statistics.median(v) for k, v in times.items()},
        "ratios_silt_over_parquet": ratios,
        "median_ratio_silt_over_parquet": ratio,
        "target": WRITE_TARGET_RATIO,
        "meets_target": ratio <= WRITE_TARGET_RATIO,
    }


# ------------------------------------------------------------------ (b) data skipping

def bench_skipping(spark, rows, reps, files=100):
    path = SCRATCH_DIR / "skipping"
    rm(path)
    # key is a permutation of 0..rows-1 (7919 is prime and divides no power of 10), so the
    # range repartition really reorders the data; each file then holds one contiguous key range.
    assert rows % 7919 != 0
    secs_write, _ = timed(lambda: (
        spark.range(0, rows, 1, 8)
        .selectExpr(f"(id * 7919) % {rows} AS key", "id AS v", "concat('k', CAST(id AS STRING)) AS s")
        .repartitionByRange(files, "key").sortWithinPartitions("key")
        .write.format("silt").mode("error").save(str(path))))
    print(f"  skipping: wrote the sorted table in {secs_write:.1f} s", flush=True)
    lo = rows // 3
    hi = lo + rows // 1000  # 0.1% of the keys: one file, two at worst
    query = lambda: (spark.read.format("silt").load(str(path))
                     .where(f"key BETWEEN {lo} AND {hi}").selectExpr("count(*) AS n", "sum(v) AS s"))

    def run(enabled):
        spark.conf.set(SKIPPING_CONF, "true" if enabled else "false")
        secs, res = timed(lambda: query().collect())
        return secs, (res[0]["n"], res[0]["s"])

    results = {}
    try:
        for enabled in (True, False):
            spark.conf.set(SKIPPING_CONF, "true" if enabled else "false")
            results[enabled] = {"files_scanned": files_scanned(spark, query()), "seconds": []}
            run(enabled)  # warm-up
        answers = set()
        for i in range(reps):
            for enabled in alternating((True, False), i):
                secs, ans = run(enabled)
                answers.add(ans)
                results[enabled]["seconds"].append(secs)
                print(f"  query skipping={'on ' if enabled else 'off'} rep {i}: {secs:6.3f} s", flush=True)
    finally:
        spark.conf.unset(SKIPPING_CONF)
    total_files = results[False]["files_scanned"]
    on = statistics.median(results[True]["seconds"])
    off = statistics.median(results[False]["seconds"])
    out = {
        "benchmark": "skipping",
        "rows": rows,
        "files_written_target": files,
        "query": f"key BETWEEN {lo} AND {hi}: count(*), sum(v)",
        "answers_agree": len(answers) == 1,
        "answer": list(answers)[0] if len(answers) == 1 else sorted(answers),
        "files_scanned": {"skipping_on": results[True]["files_scanned"], "skipping_off": total_files},
        "seconds": {"skipping_on": results[True]["seconds"], "skipping_off": results[False]["seconds"]},
        "median_seconds": {"skipping_on": on, "skipping_off": off},
        "time_ratio_off_over_on": off / on,
        "files_ratio_off_over_on": total_files / max(results[True]["files_scanned"], 1),
    }
    if total_files == 0:
        # A query that returned rows read at least one file: a zero is a broken count, not a result.
        out["warning"] = ("ScanMetrics.filesScanned returned 0 for a scan that read rows; the "
                          "file counts of this run are not valid")
        print(f"  WARNING: {out['warning']}", flush=True)
    rm(path)
    return out


# ------------------------------------------------------------------ reporting

def print_table(results):
    rows = [("benchmark", "measure", "value")]
    for r in results:
        if r["benchmark"] == "write":
            m = r["median_seconds"]
            rows += [("write", f"parquet, median of {r['reps']} ({r['rows']:,} rows)", f"{m['parquet']:.2f} s"),
                     ("write", "silt (with stats), median", f"{m['silt']:.2f} s"),
                     ("write", f"ratio silt/parquet, median (target <= {r['target']})",
                      f"{r['median_ratio_silt_over_parquet']:.3f} {'ok' if r['meets_target'] else 'ABOVE TARGET'}")]
        elif r["benchmark"] == "skipping":
            f, m = r["files_scanned"], r["median_seconds"]
            rows += [("skipping", "files scanned, skipping on / off", f"{f['skipping_on']} / {f['skipping_off']}"),
                     ("skipping", "query time, skipping on", f"{m['skipping_on']:.3f} s"),
                     ("skipping", "query time, skipping off", f"{m['skipping_off']:.3f} s"),
                     ("skipping", "time ratio off/on", f"{r['time_ratio_off_over_on']:.2f}x"),
                     ("skipping", "same answer both ways", str(r["answers_agree"]))]
            if r.get("warning"):
                rows.append(("skipping", "WARNING", r["warning"]))
        elif r["benchmark"] in CHILD_BENCHMARKS:
            rows += (CHILD_BENCHMARKS[r["benchmark"]].summary_rows(r) if "error" not in r
                     else [(r["benchmark"], "FAILED", r["error"])])
    print("\n".join(table_lines(rows)))


def run_child(name, script, args):
    """Runs bench/<script> in a child process (its own JVM, after the previous one has exited) and
    returns the result it saved as bench/results/<name>.json, or an error entry."""
    out = RESULTS_DIR / f"{name}.json"
    started = time.time()
    print(f"{name}:", flush=True)
    rc = subprocess.run([sys.executable, str(BENCH_DIR / script)] + [str(a) for a in args]).returncode
    if rc == 0 and out.exists() and out.stat().st_mtime >= started:
        return json.loads(out.read_text())
    return {"benchmark": name, "error": f"bench/{script} exited with {rc}"}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6_000_000, help="rows written by the write benchmark")
    ap.add_argument("--skip-rows", type=int, default=6_000_000, help="rows of the skipping table")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each write")
    ap.add_argument("--query-reps", type=int, default=5, help="repetitions of each query")
    ap.add_argument("--files", type=int, default=100, help="files of the skipping table")
    ap.add_argument("--optimize-rows", type=int, default=10_000_000, help="rows of the optimize benchmark")
    ap.add_argument("--optimize-reps", type=int, default=2, help="repetitions of Silt's OPTIMIZE and the floor")
    ap.add_argument("--dv-rows", type=int, default=10_000_000, help="rows of the deletion-vector tables")
    ap.add_argument("--commits", type=int, default=10_000, help="commits of the checkpoint benchmark's long log")
    ap.add_argument("--build-budget", type=float, default=900.0, help="seconds to build that log with INSERTs")
    ap.add_argument("--checkpoint-files", type=int, default=20_000, help="files of the CHECKPOINT table")
    ap.add_argument("--only", choices=["write", "skipping", "optimize", "dv", "checkpoint"])
    args = ap.parse_args(argv)

    SCRATCH_DIR.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    results = []
    # First, before this process starts a JVM: these benchmarks run their JVMs as child processes,
    # one at a time (optimize: Silt's, then the reference Delta Lake's), each under ~8 minutes.
    children = [("optimize", "optimize_bench.py", ["--rows", args.optimize_rows, "--reps", args.optimize_reps]),
                ("dv", "dv_bench.py", ["--rows", args.dv_rows]),
                ("checkpoint_open", "checkpoint_bench.py", ["--part", "open", "--commits", args.commits,
                                                            "--build-budget", args.build_budget]),
                ("checkpoint_write", "checkpoint_bench.py", ["--part", "write", "--files", args.checkpoint_files]),
                ("checkpoint_million", "checkpoint_million.py", [])]
    for name, script, child_args in children:
        if args.only in (None, name.split("_")[0]):
            results.append(run_child(name, script, child_args))
    if args.only not in (None, "write", "skipping"):
        rm(SCRATCH_DIR)
        print()
        print_table(results)
        print(f"\ntotal {time.perf_counter() - t0:.0f} s")
        return 0 if all("error" not in r for r in results) else 1
    spark = build_spark()
    try:
        env = environment()
        if args.only in (None, "write"):
            print("write throughput:", flush=True)
            results.append(bench_write(spark, args.rows, args.reps))
            print(f"  -> {save_result(results[-1], env)}")
        if args.only in (None, "skipping"):
            print("data skipping:", flush=True)
            results.append(bench_skipping(spark, args.skip_rows, args.query_reps, args.files))
            print(f"  -> {save_result(results[-1], env)}")
    finally:
        spark.stop()
        rm(SCRATCH_DIR)
    print()
    print_table(results)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
