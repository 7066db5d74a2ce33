"""Deletion vectors benchmark: DELETE of scattered rows with DVs against copy-on-write, and the
cost DVs add to a full scan.

Data: ROWS rows (default 10 M) in FILES (64) files, one per `spark.range` partition (so each file
holds a contiguous id range), columns id BIGINT, k INT, amount DOUBLE, user STRING. Two base tables
are written from the same deterministic frame: one created with 'delta.enableDeletionVectors' =
'true', one with 'false'.

(a) DELETE FROM silt.`<t>` WHERE id % 1000 = 7 (0.1% of the rows, in every file) on a fresh copy
    of each base table (a real copy, at a path the JVM has not read), alternating which mode goes
    first, REPS (5) times each; ratio: median COW / median DV (target >= 10). Before the timed
    runs each mode deletes WARMUPS (3) times on full-size copies, alternating, so that both are
    timed with their code compiled by the JIT: a DV DELETE lasts a fraction of a second, and in a
    fresh JVM the compiler threads take as much CPU as its tasks on 2 cores. The warm-up times are
    reported too. Report only: the floor of a DV DELETE, plain Spark finding the matching rows'
    (file path, row index) grouped by file (no DV written, nothing committed).
(b) the same full scan (count and sums over all four columns, so every Parquet column is read)
    of the DV table after its delete and of "clean": the same rows without DVs in the same 64-file
    layout (the frame without the deleted rows, written as such), alternating, SCAN_REPS (9) times
    each after WARMUPS (3) rounds of untimed scans of every table (reported); ratio: median DV /
    median clean (target <= 1.1). Report only: the COW table after its delete (its rewrite packs
    the rows into fewer files), the base table before any delete, and clean's files read by plain
    Spark with `_metadata.row_index`. All answers must agree.

One JVM (local[2], driver memory 4g, 8 shuffle partitions); each timed run records its task CPU
(Spark's executorCpuTime) and what other processes used meanwhile. Writes bench/results/dv.json;
scratch tables go to bench/results/tmp/dv/ and are removed at the end. About 3-4 minutes with the
defaults on 2 cores.

    python -m bench dv [--rows N] [--files F] [--reps R] [--warmups W] [--scan-reps R]
"""
import argparse
import json
import shutil
import statistics
from pathlib import Path

from bench.common import SCRATCH_DIR, alternating, folder_stats, measure_and_save, rm, say, timed
from bench.log_open import snapshot_file_count
from bench.machine_load import Accounting, busy_rows, busy_runs, median_task_cpu

SCRATCH = SCRATCH_DIR / "dv"
PREDICATE = "id % 1000 = 7"
TARGET_DELETE = 10.0   # copy-on-write / DV, at least
TARGET_SCAN = 1.1      # DV / no DV, at most
MODES = ("dv", "cow")


def frame(spark, rows, files):
    """The tables' rows: one contiguous id range per `spark.range` partition (per file)."""
    return spark.range(0, rows, 1, files).selectExpr(
        "id", "CAST(id % 97 AS INT) AS k", "CAST(id * 0.37 AS DOUBLE) AS amount",
        "concat('user_', CAST(id % 50000 AS STRING)) AS user")


def create_table(spark, path, rows, files, dv, where=None):
    """A Silt table with DVs on or off, holding frame()'s rows (those matching `where`)."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, k INT, amount DOUBLE, user STRING) USING silt "
              f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{'true' if dv else 'false'}')")
    df = frame(spark, rows, files)
    (df.where(where) if where else df).write.format("silt").mode("append").save(str(path))


SCAN_AGGREGATES = ["count(*) AS n", "sum(id) AS s_id", "sum(k) AS s_k", "sum(amount) AS s_amount",
                   "sum(length(user)) AS s_user"]


def scan(spark, path, plain_with_row_index=False):
    """A full scan reading every column; returns the answer as a tuple. plain_with_row_index: the
    table's Parquet files read by plain Spark with each row's `_metadata.row_index` (what a DV
    scan must produce), summed too: the Spark part of what DVs cost a scan."""
    if plain_with_row_index:
        df = spark.read.parquet(str(path)).selectExpr(*SCAN_AGGREGATES, "sum(_metadata.row_index) AS s_idx")
    else:
        df = spark.read.format("silt").load(str(path)).selectExpr(*SCAN_AGGREGATES)
    r = df.collect()[0]
    return (r["n"], r["s_id"], r["s_k"], round(r["s_amount"], 2), r["s_user"])


def find_rows_floor(spark, path):
    """What a DV DELETE must compute, in plain Spark: the (file, row index) of the matching rows,
    grouped by file. No deletion vector is written and nothing is committed."""
    return len(spark.read.parquet(str(path)).where(PREDICATE)
               .selectExpr("_metadata.file_path AS f", "_metadata.row_index AS i")
               .groupBy("f").agg({"i": "collect_list"}).collect())


def delete(spark, path):
    """The timed DELETE; returns the rows it deleted."""
    return spark.sql(f"DELETE FROM silt.`{path}` WHERE {PREDICATE}").collect()[0][0]


def last_commit_info(path):
    """The latest commit's version, operation and metrics, from its commitInfo."""
    log = Path(path) / "_delta_log"
    last = max((p for p in log.glob("*.json") if p.name[:-5].isdigit()), key=lambda p: int(p.name[:-5]))
    for line in last.read_text().splitlines():
        if line.startswith('{"commitInfo"'):
            info = json.loads(line)["commitInfo"]
            return {"version": int(last.name[:-5]), "operation": info.get("operation"),
                    "operationMetrics": info.get("operationMetrics")}
    return None


def table_files(path):
    """The Parquet and DV files on disk in a table's folder, and their bytes."""
    n_data, b_data = folder_stats(path, "*.parquet")
    n_dv, b_dv = folder_stats(path, "*.bin")
    return {"parquet_files_on_disk": n_data, "parquet_bytes_on_disk": b_data,
            "dv_files": n_dv, "dv_bytes": b_dv}


def bench_dv(spark, rows=10_000_000, files=64, reps=5, scan_reps=9, warmups=3):
    """Both base tables, the timed DELETEs and the timed scans; returns the result."""
    acct = Accounting(spark)
    base = {}
    write_secs = {}
    for mode in MODES:
        base[mode] = SCRATCH / f"base-{mode}"
        write_secs[mode], _ = timed(lambda: create_table(spark, base[mode], rows, files, mode == "dv"))
        n = snapshot_file_count(spark, base[mode])
        say(f"  base table ({mode}): {rows:,} rows, {n} files, written in {write_secs[mode]:.1f} s")
        if n != files:
            raise RuntimeError(f"the {mode} base table has {n} files, not {files}")

    # Warm-up: each mode's DELETE on full-size copies (JIT compilation, class loading).
    warmup_secs = {m: [] for m in MODES}
    for i in range(warmups):
        for mode in alternating(MODES, i):
            path = SCRATCH / f"warm-{mode}-{i}"
            shutil.copytree(base[mode], path)
            warmup_secs[mode].append(timed(lambda: delete(spark, path))[0])
            rm(path)
    say("  warm-up DELETEs: " + "; ".join(f"{m} " + ", ".join(f"{x:.2f}" for x in v) + " s"
                                         for m, v in warmup_secs.items()))

    # (a) DELETE, each on a fresh copy
    seconds, runs, deleted, commits = ({m: [] for m in MODES} for _ in range(4))
    last = {}
    for i in range(reps):
        for mode in alternating(MODES, i):
            path = SCRATCH / f"{mode}-{i}"
            shutil.copytree(base[mode], path)
            secs, n, a = acct.run(lambda: delete(spark, path))
            seconds[mode].append(secs)
            runs[mode].append(a)
            deleted[mode].append(n)
            commits[mode].append(last_commit_info(path))
            say(f"  DELETE {mode:3s} rep {i}: {secs:6.2f} s, {n:,} rows (JVM CPU {a['jvm_cpu_s']:.0f} s, "
                f"other load {a['other_load']:.0%})")
            if i < reps - 1:
                rm(path)
            else:
                last[mode] = path
    find_rows_floor(spark, base["dv"])  # warm-up
    floor = [acct.run(lambda: find_rows_floor(spark, base["dv"])) for _ in range(reps)]
    say("  DELETE floor (plain Spark finds the rows' file and row index, grouped by file): " +
        ", ".join(f"{x[0]:.2f} s" for x in floor))
    med = {m: statistics.median(v) for m, v in seconds.items()}
    delete_ratio = med["cow"] / med["dv"]
    expected = len(range(7, rows, 1000))
    wrong_counts = {m: v for m, v in deleted.items() if any(x != expected for x in v)}

    # (b) full scans: the DV table after its delete against the same rows without DVs in the same
    # 64-file layout ("clean": the frame without the deleted rows, written as such); report only:
    # the COW table after its delete (its rewrite packs the rows into fewer files) and the base.
    clean = SCRATCH / "clean"
    create_table(spark, clean, rows, files, False, where=f"NOT ({PREDICATE})")
    targets = {"dv": last["dv"], "clean": clean, "cow": last["cow"], "base": base["cow"], "rowidx_floor": clean}
    scan_secs, scan_runs, answers, scan_warmup_secs = ({k: [] for k in targets} for _ in range(4))
    order = list(targets)
    # Warm-up, as many rounds as for DELETE: with one, the JIT was still compiling the scans' code
    # (the DV filter among it) during the timed runs. Also loads each path's snapshot once, as a
    # reader would.
    for i in range(max(warmups, 1)):
        for k in alternating(order, i):
            scan_warmup_secs[k].append(timed(lambda: scan(spark, targets[k], k == "rowidx_floor"))[0])
    say("  warm-up scans: " + "; ".join(f"{k} " + ", ".join(f"{x:.2f}" for x in v) + " s"
                                      for k, v in scan_warmup_secs.items()))
    for i in range(scan_reps):
        for k in alternating(order, i):
            secs, ans, a = acct.run(lambda: scan(spark, targets[k], k == "rowidx_floor"))
            scan_secs[k].append(secs)
            scan_runs[k].append(a)
            answers[k].append(ans)
        say(f"  scan rep {i}: " + ", ".join(f"{k} {scan_secs[k][-1]:.2f} s" for k in order))
    smed = {k: statistics.median(v) for k, v in scan_secs.items()}
    scpu = {k: median_task_cpu(v) for k, v in scan_runs.items()}
    scan_ratio = smed["dv"] / smed["clean"]
    agree = len({*answers["dv"], *answers["clean"], *answers["cow"], *answers["rowidx_floor"]}) == 1
    layout = {k: dict(table_files(p), snapshot_files=snapshot_file_count(spark, p)) for k, p in targets.items()
              if k != "rowidx_floor"}

    loaded = busy_runs([(f"delete {m} rep {i}", a) for m, rs in runs.items() for i, a in enumerate(rs)] +
                       [(f"delete floor rep {i}", x[2]) for i, x in enumerate(floor)] +
                       [(f"scan {k} rep {i}", a) for k, rs in scan_runs.items() for i, a in enumerate(rs)])
    result = {
        "benchmark": "dv",
        "rows": rows, "files": files, "reps": reps, "warmups": warmups, "scan_reps": scan_reps,
        "predicate": PREDICATE, "warmup_delete_seconds": warmup_secs,
        "base_write_seconds": write_secs,
        "delete": {"seconds": seconds, "median_seconds": med, "rows_deleted": deleted,
                   "rows_expected": expected, "wrong_counts": wrong_counts,
                   "ratio_cow_over_dv": delete_ratio, "commits": commits, "runs": runs,
                   "median_task_cpu_s": {m: median_task_cpu(v) for m, v in runs.items()},
                   "floor_find_rows": {"seconds": [x[0] for x in floor], "runs": [x[2] for x in floor],
                                       "median_seconds": statistics.median(x[0] for x in floor),
                                       "median_task_cpu_s": median_task_cpu([x[2] for x in floor])}},
        "scan": {"seconds": scan_secs, "median_seconds": smed, "ratio_dv_over_clean": scan_ratio,
                 "ratio_dv_over_cow": smed["dv"] / smed["cow"], "median_task_cpu_s": scpu,
                 "answers": {k: [list(a) for a in v] for k, v in answers.items()}, "answers_agree": agree,
                 "runs": scan_runs, "warmup_seconds": scan_warmup_secs},
        "tables_after_delete": layout,
        "busy_machine_runs": loaded,
        "targets": {"delete_cow_over_dv": {"target": TARGET_DELETE, "value": delete_ratio,
                                           "ok": delete_ratio >= TARGET_DELETE},
                    "scan_dv_over_clean": {"target": TARGET_SCAN, "value": scan_ratio,
                                           "ok": scan_ratio <= TARGET_SCAN}},
    }
    result["all_targets_met"] = all(t["ok"] for t in result["targets"].values()) and agree and not wrong_counts
    return result


def _stage_summary(run, top=3):
    """The stages that took the longest in one timed run: 'name: wall s (tasks)'."""
    st = sorted(run.get("stages") or [], key=lambda s: -s["wall_s"])[:top]
    name = lambda s: f"stage {s['stage']}" if s["name"].startswith("$") else s["name"].split(" at ")[-1].strip()
    return "; ".join(f"{name(s)} {s['wall_s']:.1f} s ({s['tasks']} tasks, CPU {s['task_cpu_s']:.1f} s)" for s in st) or "-"


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    d, s, t = r["delete"], r["scan"], r["targets"]
    ok = lambda k: "ok" if t[k]["ok"] else ("ABOVE TARGET" if k.startswith("scan") else "BELOW TARGET")
    secs = lambda v: ", ".join(f"{x:.2f}" for x in v)
    la = r["tables_after_delete"]
    rows = [
        ("dv", f"DELETE {r['predicate']} ({r['rows']:,} rows, {r['files']} files): DV, median of {r['reps']}",
         f"{d['median_seconds']['dv']:.2f} s ({secs(d['seconds']['dv'])})"),
        ("dv", "DELETE, copy-on-write, median", f"{d['median_seconds']['cow']:.2f} s ({secs(d['seconds']['cow'])})"),
        ("dv", f"  report only: untimed warm-up DELETEs before ({r['warmups']} each)",
         "; ".join(f"{m} {secs(v)} s" for m, v in r["warmup_delete_seconds"].items())),
        ("dv", f"DELETE ratio COW/DV (target >= {TARGET_DELETE:g})", f"{d['ratio_cow_over_dv']:.1f}x {ok('delete_cow_over_dv')}"),
        ("dv", "  report only: floor, plain Spark finding the rows (file, row index) by file; COW/floor",
         f"{d['floor_find_rows']['median_seconds']:.2f} s; {d['median_seconds']['cow'] / d['floor_find_rows']['median_seconds']:.1f}x"),
        ("dv", "rows deleted (expected)", f"{d['rows_deleted']['dv'][0]:,} dv, {d['rows_deleted']['cow'][0]:,} cow "
         f"({d['rows_expected']:,})"),
        ("dv", "after DELETE: DV files / data files rewritten by COW",
         f"{la['dv']['dv_files']} DV files ({la['dv']['dv_bytes'] / 1024:.0f} KiB) / "
         f"{(d['commits']['cow'][0] or {}).get('operationMetrics', {}).get('numAddedFiles', '?')} files"),
        ("dv", f"full scan, DV table ({la['dv']['snapshot_files']} files), median of {r['scan_reps']}",
         f"{s['median_seconds']['dv']:.2f} s"),
        ("dv", f"full scan, same rows without DVs ({la['clean']['snapshot_files']} files)", f"{s['median_seconds']['clean']:.2f} s"),
        ("dv", f"scan ratio DV/no-DV (target <= {TARGET_SCAN})", f"{s['ratio_dv_over_clean']:.3f} {ok('scan_dv_over_clean')}"),
        ("dv", f"  report only: untimed warm-up scans before ({r['warmups']} rounds)",
         "; ".join(f"{k} {secs(v)} s" for k, v in s["warmup_seconds"].items())),
        ("dv", f"  report only: COW table after its DELETE ({la['cow']['snapshot_files']} files); DV/COW",
         f"{s['median_seconds']['cow']:.2f} s; {s['ratio_dv_over_cow']:.3f}"),
        ("dv", f"  report only: base table before any delete ({la['base']['snapshot_files']} files)",
         f"{s['median_seconds']['base']:.2f} s"),
        ("dv", "  report only: no-DV files read by plain Spark with _metadata.row_index",
         f"{s['median_seconds']['rowidx_floor']:.2f} s"),
        ("dv", "same answer with and without DVs", str(s["answers_agree"])),
        ("dv", "task CPU medians (executorCpuTime): DELETE DV / COW; scan DV / no-DV",
         " / ".join("-" if x is None else f"{x:.2f} s" for x in (d["median_task_cpu_s"]["dv"], d["median_task_cpu_s"]["cow"]))
         + "; " + " / ".join("-" if x is None else f"{x:.2f} s" for x in (s["median_task_cpu_s"]["dv"], s["median_task_cpu_s"]["clean"]))
         + f" (row-index floor {s['median_task_cpu_s']['rowidx_floor'] or 0:.2f} s)"),
        ("dv", "slowest stages, DELETE DV rep 0", _stage_summary(d["runs"]["dv"][0])),
        ("dv", "slowest stages, DELETE COW rep 0", _stage_summary(d["runs"]["cow"][0])),
    ]
    if d["wrong_counts"]:
        rows.append(("dv", "WARNING: wrong deleted-row counts", str(d["wrong_counts"])))
    return rows + busy_rows("dv", r)


def parser():
    """The dv benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench dv", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5, help="timed DELETE repetitions of each mode")
    ap.add_argument("--warmups", type=int, default=3,
                    help="untimed DELETEs of each mode on full-size copies, and rounds of untimed scans, first")
    ap.add_argument("--scan-reps", type=int, default=9, help="full-scan repetitions of each table")
    return ap


def main(argv):
    """Runs the dv benchmark; writes results/dv.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_dv(spark, a.rows, a.files, a.reps, a.scan_reps, a.warmups), SCRATCH)
