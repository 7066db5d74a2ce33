"""peers: the same operations on the same data in Silt and in the reference Delta Lake.

Data: ROWS rows (default 5 M) of the write benchmark's mixed-type columns (id, int, double,
decimal(10,2) `price`, string, date, timestamp, boolean) in FILES (32) files, one contiguous id
range each. Operations, in each engine's own JVM (local[2], driver memory 4g, 8 shuffle
partitions; Silt as format("silt") / silt.`<path>`, the reference as format("delta") /
delta.`<path>`, io.delta:delta-spark_2.13 as in tests/interop/reference_delta.py, with its
spark.databricks.delta.snapshotPartitions = 2 as there):
  write       df.write.format(...).save(path) of the generated DataFrame
  scan        count(*) and sum(price) of the whole table (every file read)
  point       the same of `id = <one key>`
  delete_dv   DELETE WHERE id % 1000 = 7 (0.1% of the rows, in every file) on a table with
              'delta.enableDeletionVectors' = 'true' (the same rows, written by CTAS, untimed)
  update_dv   UPDATE SET price = price + 1 WHERE id % 1000 = 7 on the table with DVs
  delete_cow  the same DELETE on the table without DVs (copy-on-write)
  merge_dv    MERGE ... WHEN MATCHED UPDATE SET * WHEN NOT MATCHED INSERT * of 1% of the rows as
              upserts: half existing ids (every 200th), half new ones; on the table with DVs
  merge_cow   the same MERGE on the table without DVs (copy-on-write)
  optimize    OPTIMIZE (compaction) of a separate table of ROWS / 10 rows in SMALL_FILES (200) files
Every DML and OPTIMIZE runs on a fresh real copy of its table (a folder copy, untimed), so each
run does the same work on a path the JVM has never opened. Each repetition starts one process per
engine, alternating which goes first; each process first runs every operation at a small size
(warm-up: JIT, class loading, Ivy), then once at full size, timed (machine load recorded as in
the other benchmarks). After each operation its table's count(*) and sum(price) are read
(untimed): both engines must agree. Reported per operation: every run's seconds, the medians and
median Silt / median reference; target <= 0.5 for each operation but write (report only).
Each process also times the floors (FLOORS): plain Spark doing the physical work of the full scan,
of the copy-on-write DELETE (read every file, write all rows but the deleted ones) and of the
copy-on-write MERGE (a left outer join of every file with the source, plus the new rows, written)
on the table's Parquet files; reported: their median and each engine's median / floor.

    python -m bench peers [--rows N] [--reps R] [--files F] [--small-files F] [--warmups W]

Writes bench/results/peers.json. A smoke run: `python -m bench peers --rows 100000 --reps 1`.
"""
import argparse
import statistics
import time

from bench.common import ENGINES, SCRATCH_DIR, alternating, delta_package, measure_and_save, rm
from bench.machine_load import busy_rows, busy_runs
from bench.peers_engine import FLOORS, OPERATIONS, PREDICATE, REFERENCE_CONF
from bench.runner import call

SCRATCH = SCRATCH_DIR / "peers"
TARGET_RATIO = 0.5       # median Silt / median reference, at most
REPORT_ONLY = ("write",)


def parser():
    """The peers benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench peers", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000, help="rows of the table")
    ap.add_argument("--reps", type=int, default=3, help="repetitions: processes of each engine")
    ap.add_argument("--files", type=int, default=32, help="files the table is written as")
    ap.add_argument("--small-files", type=int, default=200, help="files of the table OPTIMIZE compacts")
    ap.add_argument("--warmups", type=int, default=1, help="untimed small passes in each process first")
    return ap


def run_processes(args):
    """One process per engine and repetition, alternating; returns their outputs by engine."""
    outputs = {e: [] for e in ENGINES}
    for i in range(args.reps):
        for engine in alternating(ENGINES, i):
            params = {"engine": engine, "rep": i, "scratch": str(SCRATCH / f"{engine}-{i}"),
                      "rows": args.rows, "files": args.files, "small_files": args.small_files,
                      "warmups": args.warmups, "warmup_rows": max(args.rows // 20, 10_000)}
            t0 = time.perf_counter()
            out = call("bench.peers_engine:run_engine", params, f"peers-{engine}-{i}")
            outputs[engine].append(dict(out, process_seconds=time.perf_counter() - t0))
    return outputs


def compare(args, outputs):
    """The result: per operation every run's seconds, medians, ratios, targets, answers."""
    per = lambda op, key: {e: [o["ops"][op][key] for o in outputs[e]] for e in ENGINES}
    seconds = {op: per(op, "seconds") for op in OPERATIONS}
    medians = {op: {e: statistics.median(v) for e, v in s.items()} for op, s in seconds.items()}
    ratios = {op: m["silt"] / m["delta"] for op, m in medians.items()}
    answers = {op: per(op, "answer") for op in OPERATIONS}
    agree = {op: len({repr(x) for v in a.values() for x in v}) == 1 for op, a in answers.items()}
    targets = {op: {"target": TARGET_RATIO, "value": r, "ok": r <= TARGET_RATIO}
               for op, r in ratios.items() if op not in REPORT_ONLY}
    runs = {op: per(op, "run") for op in OPERATIONS}
    # Each process times the floors too; their median over both engines' processes.
    floor_seconds = {op: [o["floors"][op]["seconds"] for e in ENGINES for o in outputs[e]] for op in FLOORS}
    floors = {op: statistics.median(v) for op, v in floor_seconds.items()}
    details = {op: {k: per(op, k) for k in ("dv_files", "parquet_files", "files_added", "files_removed")
                    if k in outputs["silt"][0]["ops"][op]} for op in OPERATIONS}
    return {
        "benchmark": "peers",
        "rows": args.rows, "files": args.files, "small_files": args.small_files, "reps": args.reps,
        "warmups": args.warmups, "predicate": PREDICATE, "operations": list(OPERATIONS),
        "reference": {"package": delta_package(), "conf": REFERENCE_CONF,
                      "spark": outputs["delta"][0]["spark"]},
        "seconds": seconds, "median_seconds": medians, "ratio_silt_over_reference": ratios,
        "targets": targets, "report_only": list(REPORT_ONLY),
        "floor_seconds": floor_seconds, "floor_median_seconds": floors,
        "ratio_over_floor": {op: {e: medians[op][e] / f for e in ENGINES} for op, f in floors.items()},
        "answers": answers, "answers_agree": agree, "tables_after": {op: d for op, d in details.items() if d},
        "runs": runs,
        "warmup_seconds": {e: [o["warmup_seconds"] for o in outputs[e]] for e in ENGINES},
        "process_seconds": {e: [o["process_seconds"] for o in outputs[e]] for e in ENGINES},
        "busy_machine_runs": busy_runs([(f"{op} {e} rep {i}", a) for op, r in runs.items()
                                        for e, v in r.items() for i, a in enumerate(v)] +
                                       [(f"{op} floor in {e} rep {i}", o["floors"][op]["run"]) for op in FLOORS
                                        for e in ENGINES for i, o in enumerate(outputs[e])]),
        "all_targets_met": all(t["ok"] for t in targets.values()) and all(agree.values()),
    }


def measure(args):
    """The processes, then their comparison; the scratch folder is gone afterwards."""
    rm(SCRATCH)
    try:
        return compare(args, run_processes(args))
    finally:
        rm(SCRATCH)


def main(argv):
    """Runs the peers benchmark; writes results/peers.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda: measure(args))


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = [("peers", f"{r['rows']:,} rows, {r['files']} files; median of {r['reps']}: Silt / reference Delta",
             "ratio")]
    for op in r["operations"]:
        m, ratio = r["median_seconds"][op], r["ratio_silt_over_reference"][op]
        t = r["targets"].get(op)
        verdict = "report only" if t is None else ("ok" if t["ok"] else "ABOVE TARGET")
        target = "" if t is None else f" (target <= {t['target']})"
        floor = r.get("floor_median_seconds", {}).get(op)
        at_floor = "" if floor is None else f"; plain-Spark floor {floor:.2f} s"
        rows.append(("peers", f"  {op}: {m['silt']:.2f} s / {m['delta']:.2f} s{target}{at_floor}",
                     f"{ratio:.2f} {verdict}" + ("" if r["answers_agree"][op] else " ANSWERS DIFFER")))
    return rows + busy_rows("peers", r)
