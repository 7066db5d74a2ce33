"""write: the same DataFrame written with plain `df.write.parquet` (the floor: the same physical
Parquet work, no log, no statistics) and with `df.write.format("silt")` (log + per-file
statistics), alternating, REPS times each after a warm-up; reports the median of the per-pair
ratios silt/parquet (target <= 1.15).
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, alternating, measure_and_save, rm, say, timed

SCRATCH = SCRATCH_DIR / "write"
TARGET_RATIO = 1.15


# A handful of mixed-type columns computed from `id` (deterministic); the peers benchmark's data too.
MIXED_COLUMNS = (
    "id",
    "CAST(id % 1000 AS INT) AS k_int",
    "CAST(id * 0.37 AS DOUBLE) AS amount",
    "CAST((id % 100000) / 100.0 AS DECIMAL(10,2)) AS price",
    "concat('user_', CAST(id % 50000 AS STRING)) AS user",
    "date_add(DATE'2020-01-01', CAST(id % 1500 AS INT)) AS day",
    "TIMESTAMP_SECONDS(1600000000 + id) AS ts",
    "id % 7 = 0 AS flag",
)


def write_frame(spark, rows, partitions=8):
    """MIXED_COLUMNS of ids 0..rows-1, in `partitions` partitions (one contiguous id range each)."""
    return spark.range(0, rows, 1, partitions).selectExpr(*MIXED_COLUMNS)


def bench_write(spark, rows, reps):
    """Times both writers, alternating who goes first; returns the result."""
    writers = {
        "parquet": lambda df, p: df.write.mode("error").parquet(str(p)),
        "silt": lambda df, p: df.write.format("silt").mode("error").save(str(p)),
    }
    # Warm-up (JIT, class loading, the first Silt commit), not counted.
    for kind, w in writers.items():
        p = SCRATCH / f"warmup-{kind}"
        w(write_frame(spark, max(rows // 10, 1000)), p)
        rm(p)
    times = {k: [] for k in writers}
    for i in range(reps):
        for kind in alternating(writers, i):
            p = SCRATCH / f"{kind}-{i}"
            secs, _ = timed(lambda: writers[kind](write_frame(spark, rows), p))
            times[kind].append(secs)
            say(f"  write {kind:8s} rep {i}: {secs:6.2f} s")
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
        "target": TARGET_RATIO,
        "meets_target": ratio <= TARGET_RATIO,
    }


def parser():
    """The write benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench write", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6_000_000, help="rows written")
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each write")
    return ap


def main(argv):
    """Runs the write benchmark; writes results/write.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_write(spark, args.rows, args.reps), SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    m = r["median_seconds"]
    return [("write", f"parquet, median of {r['reps']} ({r['rows']:,} rows)", f"{m['parquet']:.2f} s"),
            ("write", "silt (with stats), median", f"{m['silt']:.2f} s"),
            ("write", f"ratio silt/parquet, median (target <= {r['target']})",
             f"{r['median_ratio_silt_over_parquet']:.3f} {'ok' if r['meets_target'] else 'ABOVE TARGET'}")]
