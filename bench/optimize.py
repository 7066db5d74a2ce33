"""optimize: OPTIMIZE ... ZORDER BY, layout quality (from the log's statistics alone) and speed.

Data: ROWS rows (default 10 M) written in random order as FILES (64) files of one Silt table:
  x, y  uniform doubles in [0, 1)
  z     skewed long: half the rows share 10 values, the rest uniform
  s     'customer-account-identifier-' + a zero-padded 10-digit number (38 chars: longer than the
        32-char prefix Delta keeps in string statistics; a truncated max gets a tie-breaker)
  k     a precomputed Morton key of (x, y) (31 bits each), used only by the plain-Spark floor

Layout (every variant rewrites the same data into the same number of files, FILES):
  silt_zorder_xy   Silt  OPTIMIZE '<t>' ZORDER BY (x, y), spark.silt.optimize.maxFileSize = bytes / FILES
  linear_xy        plain Spark repartitionByRange(FILES, x, y).sortWithinPartitions(x, y), written as Silt
  deltars_zorder   delta-rs DeltaTable(t).optimize.z_order(["x", "y"], target_size=...) on a copy
  reference_zorder reference Delta Lake OPTIMIZE delta.`<t>` ZORDER BY (x, y) (report only)
  floor_morton     the floor's output: range partitions of the Morton key k (report only, Parquet footers)
  silt_zorder_xs   Silt  OPTIMIZE ZORDER BY (x, s) (report only)
  ideal_grid_8x8   an exact 8 x 8 grid of equal cells on (x, y) (what a perfect 64-file layout scans)
Each is measured from its statistics alone: the add actions of the latest snapshot (JSON commits
replayed here; a table with a checkpoint is read with delta-rs' get_add_actions), a file being
scanned when its [min, max] overlaps the predicate. Predicates (the same for all variants):
1% ranges on x, on y and on s, points (existing values) on x, y and s, 1% boxes on (x, y) and (x, s)
(a 0.1 x 0.1 square). Targets for silt_zorder_xy: <= 0.16 on x and on y, <= 0.07 for the box.

Speed: OPTIMIZE ZORDER BY (x, y) on a fresh copy of the table against
  floor      spark.read.parquet(table).repartitionByRange(FILES, k).sortWithinPartitions(k).write.parquet
  reference  Delta Lake's OPTIMIZE ZORDER BY (x, y) (spark.databricks.delta.optimize.maxFileSize set so
             that it writes FILES files too), in its own process and JVM, after a warm-up there
Silt and the floor alternate in one JVM after a warm-up; ratios: median of the per-pair ratios
silt/floor (target <= 1.3) and median silt / median reference (target < 1). All JVMs: local[2],
driver memory 4g, spark.sql.shuffle.partitions 8. Only one JVM runs at a time: each runs in a child
process (bench/runner.py), one after the other (delta-rs runs in this process, between them).
The machine may be shared: each timed run first waits (briefly) for other processes to leave the
CPUs, records what they used meanwhile (other_load; a WARNING names runs above 10%), and records
the CPU seconds of the JVM and of Spark's tasks, whose ratios do not depend on the waiting.

    python -m bench optimize [--rows N] [--files F] [--reps R] [--ref-reps R] [--queries Q]
                             [--no-reference] [--no-deltars]

Writes bench/results/optimize.json; scratch tables go to bench/results/tmp/optimize/ and are
removed at the end. About 6-7 minutes with the defaults on 2 cores (more on a busy machine).
"""
import argparse
import shutil
import statistics

from bench.common import SCRATCH_DIR, measure_and_save, rm, say
from bench.layout_stats import evaluate, ideal_grid, make_predicates, snapshot_files
from bench.machine_load import LOAD_WARNING
from bench.optimize_report import (DELTA_RS_ISSUE_FIGURE, TARGET_BOX, TARGET_FLOOR, TARGET_RANGE,
                                   TARGET_REFERENCE, report_lines)
from bench.optimize_report import summary_rows  # noqa: F401  (the registry asks every benchmark for it)
from bench.optimize_runs import run_deltars
from bench.runner import call

SCRATCH = SCRATCH_DIR / "optimize"


def run_benchmark(rows=10_000_000, files=64, reps=2, ref_reps=2, queries=50, reference=True, deltars=True):
    """Runs every engine (the JVMs in child processes), then compares layouts and times."""
    rm(SCRATCH)
    SCRATCH.mkdir(parents=True)
    try:
        say(f"optimize: Silt and the floor ({rows:,} rows, {files} files, {reps} reps):")
        silt = call("bench.optimize_runs:worker_silt", {"scratch": str(SCRATCH), "rows": rows, "files": files,
                                                        "reps": reps, "queries": queries}, "optimize-silt")
        inp = SCRATCH / "input"
        layouts = {"silt_zorder_xy": silt["layouts"]["silt_zorder_xy_reps"][0],
                   "linear_xy": silt["layouts"]["linear_xy"],
                   "floor_morton": silt["layouts"]["floor_morton"],
                   "silt_zorder_xs": silt["layouts"]["silt_zorder_xs"],
                   "ideal_grid_8x8": ideal_grid(files)}
        deltars_info = None
        if deltars:
            say("optimize: delta-rs:")
            deltars_info, layouts["deltars_zorder"] = run_deltars(inp, SCRATCH, files, silt["input"]["bytes"], rows)
        ref = None
        if reference:
            tables = []
            for i in range(ref_reps):
                path = SCRATCH / f"ref-{i}"
                shutil.copytree(inp, path)
                tables.append(str(path))
            say(f"optimize: reference Delta Lake ({ref_reps} rep{'s' if ref_reps > 1 else ''}):")
            ref = call("bench.optimize_runs:worker_reference", {"scratch": str(SCRATCH), "rows": rows, "tables": tables,
                                                                "max_file_size": silt["max_file_size"]},
                       "optimize-reference")
            layouts["reference_zorder"] = snapshot_files(tables[0])[0]

        # Layout quality: one set of predicates for every variant.
        domain = {c: (min(f["min"][c] for f in silt["layouts"]["input"]),
                      max(f["max"][c] for f in silt["layouts"]["input"])) for c in ("x", "y")}
        preds = make_predicates(queries, silt["points"], domain)
        quality = {k: evaluate(v, preds) for k, v in layouts.items()}
        silt_reps_quality = [evaluate(v, preds) for v in silt["layouts"]["silt_zorder_xy_reps"]]

        # Ratios from the runs the rest of the machine left alone when there are such runs (a pair
        # counts when both of its runs are), else from all of them, flagged.
        quiet = lambda a: a["other_load"] <= LOAD_WARNING
        runs = {"silt": silt["runs"]["silt"], "floor": silt["runs"]["floor"]}
        if ref:
            runs["reference"] = ref["runs"]
        s, f = silt["seconds"]["silt"], silt["seconds"]["floor"]
        pairs = list(zip(s, f, runs["silt"], runs["floor"]))
        clean = [(a, b) for a, b, ra, rb in pairs if quiet(ra) and quiet(rb)]
        used = clean or [(a, b) for a, b, _, _ in pairs]
        pair = [a / b for a, b in used]
        speed = {"seconds": {"silt": s, "floor": f},
                 "median_seconds": {"silt": statistics.median(a for a, _ in used),
                                    "floor": statistics.median(b for _, b in used)},
                 "ratios_silt_over_floor": pair, "median_ratio_silt_over_floor": statistics.median(pair),
                 "ratio_basis": (f"{len(clean)} of {len(pairs)} pairs (those on a quiet machine)" if clean
                                 else f"all {len(pairs)} pairs, every one on a busy machine: NOT COMPARABLE"),
                 "runs": runs}
        if ref:
            rs = ref["seconds"]
            ref_clean = [x for x, a in zip(rs, runs["reference"]) if quiet(a)]
            silt_clean = [x for x, a in zip(s, runs["silt"]) if quiet(a)]
            both = bool(ref_clean and silt_clean)
            speed["seconds"]["reference"] = rs
            speed["median_seconds"]["reference"] = statistics.median(ref_clean if both else rs)
            silt_med = statistics.median(silt_clean if both else s)
            speed["ratio_silt_over_reference"] = silt_med / speed["median_seconds"]["reference"]
            speed["ratio_silt_over_reference_basis"] = (
                f"{len(silt_clean)} silt and {len(ref_clean)} reference runs on a quiet machine" if both
                else "all runs, some on a busy machine: NOT COMPARABLE")
        # CPU the JVM used (all its threads): less sensitive than seconds to a busy machine
        cpu_pairs = [a["jvm_cpu_s"] / b["jvm_cpu_s"] for a, b in zip(runs["silt"], runs["floor"])
                     if b["jvm_cpu_s"] > 0]
        speed["median_jvm_cpu_ratio_silt_over_floor"] = statistics.median(cpu_pairs) if cpu_pairs else None
        # CPU of the tasks alone (Spark's executorCpuTime): the work, whatever else ran on the machine
        task_cpu = lambda runs: [a["task_cpu_s"] for a in runs if a.get("task_cpu_s")]
        tc = {k: task_cpu(v) for k, v in speed["runs"].items()}
        speed["median_task_cpu_s"] = {k: statistics.median(v) for k, v in tc.items() if v}
        if "silt" in speed["median_task_cpu_s"] and "floor" in speed["median_task_cpu_s"]:
            speed["task_cpu_ratio_silt_over_floor"] = speed["median_task_cpu_s"]["silt"] / speed["median_task_cpu_s"]["floor"]
        if "silt" in speed["median_task_cpu_s"] and "reference" in speed["median_task_cpu_s"]:
            speed["task_cpu_ratio_silt_over_reference"] = (speed["median_task_cpu_s"]["silt"]
                                                           / speed["median_task_cpu_s"]["reference"])
        loaded = [f"{kind} rep {i} ({a['other_load']:.0%})" for kind, runs in speed["runs"].items()
                  for i, a in enumerate(runs) if a["other_load"] > LOAD_WARNING]
        speed["busy_machine_runs"] = loaded
        q = quality["silt_zorder_xy"]
        targets = {
            "range_x": {"target": TARGET_RANGE, "value": q["range_x"], "ok": q["range_x"] <= TARGET_RANGE},
            "range_y": {"target": TARGET_RANGE, "value": q["range_y"], "ok": q["range_y"] <= TARGET_RANGE},
            "box_xy": {"target": TARGET_BOX, "value": q["box_xy"], "ok": q["box_xy"] <= TARGET_BOX},
            "silt_over_floor": {"target": TARGET_FLOOR, "value": speed["median_ratio_silt_over_floor"],
                                "ok": speed["median_ratio_silt_over_floor"] <= TARGET_FLOOR},
        }
        if ref:
            targets["silt_over_reference"] = {"target": TARGET_REFERENCE, "value": speed["ratio_silt_over_reference"],
                                              "ok": speed["ratio_silt_over_reference"] < TARGET_REFERENCE}
        result = {
            "benchmark": "optimize",
            "rows": rows, "files": files, "reps": reps, "reference_reps": ref_reps if ref else 0,
            "queries_per_kind": queries,
            "input": silt["input"], "max_file_size": silt["max_file_size"],
            "layout_files_scanned": quality,
            "silt_zorder_xy_every_rep": silt_reps_quality,
            "speed": speed,
            "targets": targets,
            "all_targets_met": all(t["ok"] for t in targets.values()),
            "silt_optimize_metrics": silt["silt_metrics"],
            "silt_zorder_xs": {"seconds": silt["xs_seconds"], "metrics": silt["xs_metrics"]},
            "linear_sort_seconds": silt["linear_seconds"],
            "deltars": deltars_info,
            "reference": ref and {"package": ref["delta_package"], "metrics": ref["metrics"]},
            "delta_rs_issue_figure_range": DELTA_RS_ISSUE_FIGURE,
        }
        return result
    finally:
        rm(SCRATCH)


def parser():
    """The optimize benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench optimize", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--reps", type=int, default=2, help="repetitions of Silt's OPTIMIZE and of the floor")
    ap.add_argument("--ref-reps", type=int, default=2, help="repetitions of the reference Delta OPTIMIZE")
    ap.add_argument("--queries", type=int, default=50, help="predicates of each kind")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference Delta Lake")
    ap.add_argument("--no-deltars", action="store_true", help="skip delta-rs")
    return ap


def main(argv):
    """Runs the optimize benchmark; writes results/optimize.json, prints its report, returns the result."""
    args = parser().parse_args(argv)
    result = measure_and_save(lambda: run_benchmark(args.rows, args.files, args.reps, args.ref_reps, args.queries,
                                                    reference=not args.no_reference, deltars=not args.no_deltars))
    say("\n".join([""] + report_lines(result)))
    return result
