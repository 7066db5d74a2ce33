"""table_features: what a table feature costs a write. The write benchmark's DataFrame, with the same
two extra columns everywhere, appended to a plain Silt table and to tables with the feature (same
rows, alternating, REPS times each after a warm-up); reports the median of the per-pair ratios
feature/plain (target <= 1.10, report only).

  generated_computed  two generated columns (`CAST(ts AS DATE)`, `year(day)`) the append leaves out:
                      computed, then checked
  generated_given     the same columns given by the DataFrame: checked only
  row_tracking        `delta.enableRowTracking`: each file gets row ids at commit; then an UPDATE of
                      a tenth of the rows (deletion vectors on both tables), whose new rows keep
                      their ids: ratio to the same UPDATE on the plain table
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, alternating, measure_and_save, rm, say, timed
from bench.write import write_frame

SCRATCH = SCRATCH_DIR / "table_features"
TARGET_RATIO = 1.10
GENERATED_DDL = ("(id BIGINT, k_int INT, amount DOUBLE, price DECIMAL(10,2), user STRING, day DATE, ts TIMESTAMP, "
                 "flag BOOLEAN, ts_day DATE GENERATED ALWAYS AS (CAST(ts AS DATE)), "
                 "day_year INT GENERATED ALWAYS AS (year(day)))")

PLAIN_DDL = GENERATED_DDL.replace(" GENERATED ALWAYS AS (CAST(ts AS DATE))", "").replace(
    " GENERATED ALWAYS AS (year(day))", "")


def bench_features(spark, rows, reps):
    """Times the appends of each table kind, alternating their order; returns the result."""
    # Every table exists before its timed append, so that each append is one commit to an existing table.
    def create(kind, p):
        ddl = GENERATED_DDL if kind.startswith("generated") else PLAIN_DDL
        props = {"plain": "delta.enableDeletionVectors = true",
                 "row_tracking": "delta.enableDeletionVectors = true, delta.enableRowTracking = true"}.get(kind)
        spark.sql(f"CREATE TABLE silt.`{p}` {ddl} USING silt" + (f" TBLPROPERTIES ({props})" if props else ""))

    # The plain table gets the same ten columns, computed by the DataFrame: the difference is the feature's work.
    def frame(kind):
        df = write_frame(spark, rows)
        return df if kind == "generated_computed" else df.selectExpr("*", "CAST(ts AS DATE) AS ts_day",
                                                                      "year(day) AS day_year")

    kinds = ["plain", "generated_computed", "generated_given", "row_tracking"]
    updated = ["plain", "row_tracking"]
    for kind in kinds:  # warm-up: class loading, the first commit, the analyzer rules
        p = SCRATCH / f"warmup-{kind}"
        create(kind, p)
        frame(kind).limit(1000).write.format("silt").mode("append").save(str(p))
        rm(p)
    times = {k: [] for k in kinds}
    update_times = {k: [] for k in updated}
    for i in range(reps):
        for kind in alternating(kinds, i):
            p = SCRATCH / f"{kind}-{i}"
            create(kind, p)
            secs, _ = timed(lambda: frame(kind).write.format("silt").mode("append").save(str(p)))
            times[kind].append(secs)
            say(f"  append {kind:19s} rep {i}: {secs:6.2f} s")
            if kind in updated:
                secs, _ = timed(lambda: spark.sql(f"UPDATE silt.`{p}` SET amount = amount + 1 WHERE id % 10 = 0"))
                update_times[kind].append(secs)
                say(f"  update {kind:19s} rep {i}: {secs:6.2f} s")
            rm(p)
    ratios = {k: [t / q for t, q in zip(times[k], times["plain"])] for k in kinds if k != "plain"}
    ratios["row_tracking_update"] = [t / q for t, q in zip(update_times["row_tracking"], update_times["plain"])]
    medians = {k: statistics.median(v) for k, v in ratios.items()}
    return {
        "benchmark": "table_features",
        "rows": rows,
        "reps": reps,
        "seconds": times,
        "median_seconds": {k: statistics.median(v) for k, v in times.items()},
        "update_seconds": update_times,
        "median_update_seconds": {k: statistics.median(v) for k, v in update_times.items()},
        "ratios_over_plain": ratios,
        "median_ratio_over_plain": medians,
        "target": TARGET_RATIO,
        "meets_target": all(m <= TARGET_RATIO for m in medians.values()),
    }


def parser():
    """The table_features benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench table_features", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6_000_000, help="rows appended")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each append")
    return ap


def main(argv):
    """Runs the benchmark; writes results/table_features.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_features(spark, args.rows, args.reps), SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    m, q = r["median_seconds"], r["median_ratio_over_plain"]
    return [("table_features", f"plain append, median of {r['reps']} ({r['rows']:,} rows)", f"{m['plain']:.2f} s"),
            ("table_features", f"generated columns computed / plain (target <= {r['target']})",
             f"{q['generated_computed']:.3f}"),
            ("table_features", "generated columns given (checked) / plain", f"{q['generated_given']:.3f}"),
            ("table_features", "row tracking append / plain", f"{q['row_tracking']:.3f}"),
            ("table_features", f"row tracking UPDATE of 10% / plain ({r['median_update_seconds']['plain']:.2f} s)",
             f"{q['row_tracking_update']:.3f}")]
