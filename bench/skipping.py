"""skipping: a table sorted by `key` and written as ~100 files; a selective query on `key` timed
with data skipping on and off (`spark.silt.stats.skipping.enabled`), alternating; reports the
files each scan reads and the time ratio off/on.
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, alternating, measure_and_save, say, timed

SCRATCH = SCRATCH_DIR / "skipping"
SKIPPING_CONF = "spark.silt.stats.skipping.enabled"


def files_scanned(spark, df):
    """The number of files Silt's scan of `df` reads (its planning, no job)."""
    return int(spark._jvm.io.silt.read.ScanMetrics.filesScanned(df._jdf))


def bench_skipping(spark, rows, reps, files=100):
    """Writes the sorted table, then times the query with skipping on and off; returns the result."""
    path = SCRATCH / "table"
    # key is a permutation of 0..rows-1 (7919 is prime and divides no power of 10), so the
    # range repartition really reorders the data; each file then holds one contiguous key range.
    assert rows % 7919 != 0
    secs_write, _ = timed(lambda: (
        spark.range(0, rows, 1, 8)
        .selectExpr(f"(id * 7919) % {rows} AS key", "id AS v", "concat('k', CAST(id AS STRING)) AS s")
        .repartitionByRange(files, "key").sortWithinPartitions("key")
        .write.format("silt").mode("error").save(str(path))))
    say(f"  skipping: wrote the sorted table in {secs_write:.1f} s")
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
                say(f"  query skipping={'on ' if enabled else 'off'} rep {i}: {secs:6.3f} s")
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
        say(f"  WARNING: {out['warning']}")
    return out


def parser():
    """The skipping benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench skipping", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6_000_000, help="rows of the sorted table")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of each query")
    ap.add_argument("--files", type=int, default=100, help="files of the sorted table")
    return ap


def main(argv):
    """Runs the skipping benchmark; writes results/skipping.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_skipping(spark, args.rows, args.reps, args.files), SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    f, m = r["files_scanned"], r["median_seconds"]
    rows = [("skipping", "files scanned, skipping on / off", f"{f['skipping_on']} / {f['skipping_off']}"),
            ("skipping", "query time, skipping on", f"{m['skipping_on']:.3f} s"),
            ("skipping", "query time, skipping off", f"{m['skipping_off']:.3f} s"),
            ("skipping", "time ratio off/on", f"{r['time_ratio_off_over_on']:.2f}x"),
            ("skipping", "same answer both ways", str(r["answers_agree"]))]
    if r.get("warning"):
        rows.append(("skipping", "WARNING", r["warning"]))
    return rows
