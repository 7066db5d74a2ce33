"""OPTIMIZE ... ZORDER BY benchmark: layout quality (from the log's statistics alone) and speed.

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
driver memory 4g, spark.sql.shuffle.partitions 8. Only one JVM runs at a time: this script runs
each one as a child process, one after the other (delta-rs runs in this process, between them).
The machine may be shared: each timed run first waits (briefly) for other processes to leave the
CPUs, records what they used meanwhile (other_load; a WARNING names runs above 10%), and records
the CPU seconds of the JVM and of Spark's tasks, whose ratios do not depend on the waiting.

    .venv/bin/python bench/optimize_bench.py [--rows N] [--reps R] [--ref-reps R] [--no-reference]

Writes bench/results/optimize.json; scratch tables go to bench/results/tmp/optimize/ and are
removed at the end. About 6-7 minutes with the defaults on 2 cores (more on a busy machine).
"""
import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from layout_stats import S_DIGITS, S_PREFIX, S_SPAN, _files_from_delta_rs, evaluate, ideal_grid, make_predicates, parquet_footer_files, snapshot_files  # noqa: E402
from machine_load import Accounting, LOAD_WARNING, _proc_cpu, _system_busy, wait_for_quiet  # noqa: E402

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
SCRATCH = RESULTS_DIR / "tmp" / "optimize"
INTEROP_DIR = REPO_ROOT / "tests" / "interop"

sys.path.insert(0, str(BENCH_DIR))
from common import rm, say, timed  # noqa: E402  (bench/common.py: the helpers all benchmarks share)


TARGET_RANGE = 0.16      # files scanned for a 1% range on x or on y
TARGET_BOX = 0.07        # files scanned for a 1% box on (x, y)
TARGET_FLOOR = 1.3       # silt / floor
TARGET_REFERENCE = 1.0   # silt / reference (strictly below)
DELTA_RS_ISSUE_FIGURE = "0.79-0.82"  # the issue's figure for delta-rs z_order, 1% range on x or y

SHARED_CONF = {  # the same in every JVM of this benchmark
    "spark.driver.memory": "4g",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.session.timeZone": "UTC",
}

VARIANTS = [  # (key, label, report only)
    ("silt_zorder_xy", "Silt ZORDER BY (x, y)", False),
    ("linear_xy", "linear sort (x, y), written by Silt", False),
    ("deltars_zorder", "delta-rs z_order([x, y])", False),
    ("reference_zorder", "reference Delta ZORDER BY (x, y)", True),
    ("floor_morton", "floor: range partitions of Morton key k", True),
    ("silt_zorder_xs", "Silt ZORDER BY (x, s)", True),
    ("ideal_grid_8x8", "ideal 8 x 8 grid on (x, y)", True),
]
METRICS = [  # (key, label)
    ("range_x", "1% x"), ("range_y", "1% y"), ("point_x", "pt x"), ("point_y", "pt y"),
    ("box_xy", "box xy"), ("range_s", "1% s"), ("point_s", "pt s"), ("box_xs", "box xs"),
]




# ------------------------------------------------------------------ what else the machine did during a run

# ------------------------------------------------------------------ the data

def _spread(v):
    """SQL: the low 31 bits of a long spread to the even bit positions (Morton encoding)."""
    for shift, mask in ((16, 0x0000FFFF0000FFFF), (8, 0x00FF00FF00FF00FF), (4, 0x0F0F0F0F0F0F0F0F),
                        (2, 0x3333333333333333), (1, 0x5555555555555555)):
        v = f"(({v} | shiftleft({v}, {shift})) & {mask})"
    return v


def gen_frame(spark, rows, parts):
    """The benchmark's rows, in random order (rand is seeded per partition: deterministic)."""
    s_expr = (f"concat('{S_PREFIX}', lpad(CAST(CAST(floor(rand(6) * {S_SPAN}) AS BIGINT) AS STRING), "
              f"{S_DIGITS}, '0'))")
    z_expr = ("CASE WHEN rand(3) < 0.5 THEN CAST(floor(rand(4) * 10) AS BIGINT) * 1000003 "
              "ELSE CAST(floor(rand(5) * 1e12) AS BIGINT) END")
    df = spark.range(0, rows, 1, parts).selectExpr(
        "id", "rand(1) AS x", "rand(2) AS y", f"{z_expr} AS z", f"{s_expr} AS s")
    df = df.selectExpr("id", "x", "y", "z", "s",
                       "CAST(x * 2147483648 AS BIGINT) AS xq", "CAST(y * 2147483648 AS BIGINT) AS yq")
    return df.selectExpr("id", "x", "y", "z", "s",
                         f"shiftleft({_spread('xq')}, 1) | {_spread('yq')} AS k")


def worker_silt(p):
    sys.path.insert(0, str(BENCH_DIR))
    try:
        import common  # bench/common.py: the benchmarks' SparkSession
    except ImportError:  # an older bench/ without common.py
        import run as common
    scratch, rows, nfiles, reps = Path(p["scratch"]), p["rows"], p["files"], p["reps"]
    spark = common.build_spark()
    for k, v in SHARED_CONF.items():
        if not k.startswith("spark.driver") and spark.conf.get(k) != v:
            raise RuntimeError(f"bench session has {k}={spark.conf.get(k)}, expected {v}")
    acct = Accounting(spark)
    out = {"spark": spark.version, "layouts": {}, "seconds": {"silt": [], "floor": []},
           "runs": {"silt": [], "floor": []}, "silt_metrics": []}
    inp = scratch / "input"
    secs, _ = timed(lambda: gen_frame(spark, rows, nfiles).write.format("silt").mode("error").save(str(inp)))
    files, how = snapshot_files(inp)
    total = sum(f["size"] for f in files)
    out["input"] = {"files": len(files), "bytes": total, "rows": sum(f["rows"] for f in files),
                    "write_seconds": secs, "stats_read": how}
    out["layouts"]["input"] = files
    say(f"  input: {len(files)} files, {total / 2**20:.0f} MiB, {out['input']['rows']:,} rows, written in {secs:.1f} s")
    frac = min(1.0, 20.0 * p["queries"] / rows)
    pts = (spark.read.format("silt").load(str(inp)).sample(False, frac, seed=11)
           .select("x", "y", "s").limit(p["queries"]).collect())
    out["points"] = [r.asDict() for r in pts]

    target = total // nfiles
    out["max_file_size"] = target

    def optimize(path, cols, max_file_size):
        spark.conf.set("spark.silt.optimize.maxFileSize", str(max_file_size))
        try:
            secs, res, a = acct.run(lambda: spark.sql(f"OPTIMIZE '{path}' ZORDER BY ({cols})").collect())
        finally:
            spark.conf.unset("spark.silt.optimize.maxFileSize")
        return secs, res[0]["metrics"].asDict(recursive=True), a

    def floor(src, dst):
        secs, _, a = acct.run(lambda: spark.read.parquet(str(src)).repartitionByRange(nfiles, "k")
                              .sortWithinPartitions("k").write.mode("error").parquet(str(dst)))
        return secs, a

    # Warm-up (JIT, class loading, the code paths of both), not counted.
    warm = scratch / "warm"
    wrows = max(rows // 20, 10000)
    gen_frame(spark, wrows, 8).write.format("silt").mode("error").save(str(warm))
    wtotal = sum(f["size"] for f in snapshot_files(warm)[0])
    ws = optimize(warm, "x, y", max(1, wtotal // 8))[0]
    wf = floor(warm, scratch / "warm-floor")[0]
    say(f"  warm-up ({wrows:,} rows): silt {ws:.1f} s, floor {wf:.1f} s")
    rm(warm)
    rm(scratch / "warm-floor")

    busy = lambda j: max(out["runs"]["silt"][j]["other_load"], out["runs"]["floor"][j]["other_load"]) > LOAD_WARNING
    i = 0
    while i < reps or (i < reps + p.get("extra_reps", 1) and all(busy(j) for j in range(i))):
        if i >= reps:
            say("  (every pair so far ran on a busy machine: one more pair)")
        for kind in (("silt", "floor") if i % 2 == 0 else ("floor", "silt")):
            if kind == "silt":
                path = scratch / f"silt-{i}"
                shutil.copytree(inp, path)
                secs, metrics, a = optimize(path, "x, y", target)
                out["silt_metrics"].append(metrics)
                out["layouts"].setdefault("silt_zorder_xy_reps", []).append(snapshot_files(path)[0])
                rm(path)
                extra = f", {metrics['numFilesAdded']} files, {(metrics.get('zOrderStats') or {}).get('numOutputCubes')} cubes"
            else:
                path = scratch / f"floor-{i}"
                secs, a = floor(inp, path)
                if i == 0:
                    out["layouts"]["floor_morton"] = parquet_footer_files(path)
                rm(path)
                extra = ""
            out["seconds"][kind].append(secs)
            out["runs"][kind].append(a)
            say(f"  {kind:5s} rep {i}: {secs:6.2f} s (JVM CPU {a['jvm_cpu_s']:.0f} s, other load {a['other_load']:.0%}{extra})")
        i += 1

    # The linear sort, written by Silt.
    path = scratch / "linear"
    secs, _, a = acct.run(lambda: spark.read.format("silt").load(str(inp)).repartitionByRange(nfiles, "x", "y")
                          .sortWithinPartitions("x", "y").write.format("silt").mode("error").save(str(path)))
    out["layouts"]["linear_xy"] = snapshot_files(path)[0]
    out["linear_seconds"], out["linear_run"] = secs, a
    rm(path)
    say(f"  linear sort (x, y) written by Silt: {secs:.2f} s (other load {a['other_load']:.0%})")

    # ZORDER BY (x, s).
    path = scratch / "silt-xs"
    shutil.copytree(inp, path)
    secs, metrics, a = optimize(path, "x, s", target)
    out["layouts"]["silt_zorder_xs"] = snapshot_files(path)[0]
    out["xs_seconds"], out["xs_metrics"], out["xs_run"] = secs, metrics, a
    rm(path)
    say(f"  silt ZORDER BY (x, s): {secs:.2f} s ({metrics['numFilesAdded']} files, other load {a['other_load']:.0%})")
    spark.stop()
    return out


# ------------------------------------------------------------------ worker: the reference Delta Lake (its own JVM)

def worker_reference(p):
    sys.path.insert(0, str(INTEROP_DIR))
    from reference_delta import DELTA_PACKAGE
    from pyspark.sql import SparkSession
    b = (SparkSession.builder.master("local[2]").appName("silt-bench-reference-delta")
         .config("spark.jars.packages", DELTA_PACKAGE)
         .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
         .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
         .config("spark.sql.warehouse.dir", str(Path(p["scratch"]) / "ref-warehouse")))
    for k, v in SHARED_CONF.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    acct = Accounting(spark)
    conf = "spark.databricks.delta.optimize.maxFileSize"

    def optimize(path, max_file_size):
        spark.conf.set(conf, str(max_file_size))
        secs, res, a = acct.run(lambda: spark.sql(f"OPTIMIZE delta.`{path}` ZORDER BY (x, y)").collect())
        return secs, res[0]["metrics"].asDict(recursive=True), a

    warm = Path(p["scratch"]) / "ref-warm"
    rows = max(p["rows"] // 20, 10000)
    gen_frame(spark, rows, 8).write.format("delta").mode("error").save(str(warm))
    wtotal = sum(f["size"] for f in snapshot_files(warm)[0])
    ws = optimize(warm, max(1, wtotal // 8))[0]
    say(f"  reference warm-up ({rows:,} rows): {ws:.1f} s")
    rm(warm)
    out = {"delta_package": DELTA_PACKAGE, "seconds": [], "metrics": [], "runs": []}
    for i, path in enumerate(p["tables"]):
        secs, metrics, a = optimize(path, p["max_file_size"])
        out["seconds"].append(secs)
        out["runs"].append(a)
        out["metrics"].append({k: metrics.get(k) for k in ("numFilesAdded", "numFilesRemoved", "numBatches")})
        say(f"  reference rep {i}: {secs:6.2f} s (JVM CPU {a['jvm_cpu_s']:.0f} s, other load {a['other_load']:.0%}, "
            f"{metrics.get('numFilesAdded')} files)")
    spark.stop()
    return out


# ------------------------------------------------------------------ delta-rs (in this process)

# delta-rs closes a file when its writer's estimate of the in-progress size reaches target_size;
# that estimate is not the compressed size, so target_size = bytes / files makes too many files.
# This first guess was measured on this data at 10 M rows; other sizes are corrected by retrying.
DELTA_RS_FIRST_GUESS = 1.13


def run_deltars(inp, scratch, nfiles, total, rows, max_tries=3):
    """z_order on copies of the input, retargeted (secant on rows per file) until it writes
    about nfiles files (within nfiles / 16), at most max_tries times; the last try is kept."""
    import deltalake
    from deltalake import DeltaTable
    want = rows / nfiles
    target = int(total / nfiles * DELTA_RS_FIRST_GUESS)
    tries = []
    for attempt in range(max_tries):
        path = scratch / f"deltars-{attempt}"
        rm(path)
        shutil.copytree(inp, path)
        wait_for_quiet([os.getpid()])
        b_sys, b_self = _system_busy(), _proc_cpu(os.getpid())
        secs, metrics = timed(lambda: DeltaTable(str(path)).optimize.z_order(["x", "y"], target_size=target))
        other = max(0.0, _system_busy() - b_sys - (_proc_cpu(os.getpid()) - b_self)) / (secs * (os.cpu_count() or 1))
        files, how = snapshot_files(path)
        tries.append({"target_size": target, "seconds": secs, "files": len(files), "other_load": round(other, 3),
                      "numFilesAdded": metrics.get("numFilesAdded")})
        say(f"  delta-rs z_order, target_size {target:,}: {secs:.1f} s, {len(files)} files (other load {other:.0%})")
        if abs(len(files) - nfiles) <= max(1, nfiles // 16) or attempt == max_tries - 1:
            # cross-check the JSON replay with delta-rs' own reading of the table
            check = _files_from_delta_rs(path)
            key = lambda fs: sorted((f["path"], f["min"].get("x"), f["max"].get("x"), f["rows"]) for f in fs)
            agree = key(check) == key(files)
            rm(path)
            return {"version": deltalake.__version__, "tries": tries, "stats_read": how,
                    "replay_agrees_with_get_add_actions": agree}, files
        rm(path)
        got = rows / len(files)
        if len(tries) >= 2 and tries[-2]["files"] != len(files):
            t0, r0 = tries[-2]["target_size"], rows / tries[-2]["files"]
            nxt = target + (want - got) * (target - t0) / (got - r0)
        else:
            nxt = target * want / got
        target = max(1, int(nxt))


# ------------------------------------------------------------------ orchestration

def run_worker(kind, params, scratch):
    pfile = scratch / f"worker-{kind}.json"
    ofile = scratch / f"worker-{kind}-out.json"
    errlog = scratch / f"worker-{kind}.stderr"
    pfile.write_text(json.dumps(dict(params, out=str(ofile))))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.setdefault("PYSPARK_PYTHON", sys.executable)
    with open(errlog, "w") as err:
        rc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", kind, str(pfile)],
                            stdout=None, stderr=err, env=env).returncode
    if rc != 0 or not ofile.exists():
        tail = errlog.read_text()[-4000:]
        raise RuntimeError(f"the {kind} worker failed (exit {rc}); end of its stderr:\n{tail}")
    return json.loads(ofile.read_text())


def environment():
    import pyspark
    try:
        commit = subprocess.run(["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    import hashlib
    jars = sorted((REPO_ROOT / "python" / "silt" / "jars").glob("silt-spark_*.jar"))
    jar = {"name": jars[-1].name, "sha256_12": hashlib.sha256(jars[-1].read_bytes()).hexdigest()[:12],
           "mtime": dt.datetime.fromtimestamp(jars[-1].stat().st_mtime, dt.timezone.utc).isoformat(timespec="seconds")
           } if jars else None
    return {"when": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "git_commit": commit, "silt_jar": jar, "spark": pyspark.__version__, "master": "local[2]",
            "cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}


def run_benchmark(rows=10_000_000, files=64, reps=2, ref_reps=2, queries=50, reference=True, deltars=True):
    rm(SCRATCH)
    SCRATCH.mkdir(parents=True)
    t0 = time.perf_counter()
    try:
        say(f"optimize: Silt and the floor ({rows:,} rows, {files} files, {reps} reps):")
        silt = run_worker("silt", {"scratch": str(SCRATCH), "rows": rows, "files": files, "reps": reps,
                                   "queries": queries}, SCRATCH)
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
            ref = run_worker("reference", {"scratch": str(SCRATCH), "rows": rows, "tables": tables,
                                           "max_file_size": silt["max_file_size"]}, SCRATCH)
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
            "total_seconds": time.perf_counter() - t0,
        }
        return result
    finally:
        rm(SCRATCH)


def report_lines(r):
    """The full report: the layout matrix and the speed table."""
    lines = []
    head = ["layout (fraction of files scanned)", "files", "rows/file min-max"] + [m[1] for m in METRICS]
    table = [head]
    q = r["layout_files_scanned"]
    for key, label, report_only in VARIANTS:
        if key not in q:
            continue
        v = q[key]
        rpf = "-" if v["rows_per_file_min"] is None else f"{v['rows_per_file_min']:,}-{v['rows_per_file_max']:,}"
        table.append([label + (" *" if report_only else ""), str(v["files"]), rpf] +
                     ["-" if v[m] is None else f"{v[m]:.3f}" for m, _ in METRICS])
    w = [max(len(row[i]) for row in table) for i in range(len(head))]
    for j, row in enumerate(table):
        lines.append("  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(row)))
        if j == 0:
            lines.append("  ".join("-" * x for x in w))
    lines.append(f"* report only. {r['queries_per_kind']} predicates of each kind; 1% = 1% of the value span; "
                 f"box = 0.1 x 0.1. Targets (Silt ZORDER BY (x, y)): 1% x, 1% y <= {TARGET_RANGE}, "
                 f"box xy <= {TARGET_BOX}. Issue's figure for delta-rs, 1% x or y: {r['delta_rs_issue_figure_range']}.")
    reps = r["silt_zorder_xy_every_rep"]
    if len(reps) > 1:
        lines.append("Silt ZORDER BY (x, y), every rep (1% x / 1% y / box xy): " +
                     ", ".join(f"{e['range_x']:.3f}/{e['range_y']:.3f}/{e['box_xy']:.3f}" for e in reps))
    bad = {k: v["points_in_no_file"] for k, v in q.items() if v["points_in_no_file"]}
    if bad:
        lines.append(f"WARNING: point predicates on existing values that scan no file (wrong statistics): {bad}")
    lines.append("")
    sp = r["speed"]
    m = sp["median_seconds"]
    rows = [("speed: OPTIMIZE ZORDER BY (x, y)", "value")]
    every = lambda k: ", ".join(f"{x:.2f}{'*' if a['other_load'] > LOAD_WARNING else ''}"
                                for x, a in zip(sp["seconds"][k], sp["runs"][k]))
    rows.append(("silt, every run (* = on a busy machine)", f"{every('silt')} s"))
    rows.append(("floor (Parquet, range partitions of k), every run", f"{every('floor')} s"))
    if "reference" in m:
        rows.append(("reference Delta, every run", f"{every('reference')} s"))
    t = r["targets"]
    rows.append((f"ratio silt/floor, median of pairs (target <= {TARGET_FLOOR})",
                 f"{sp['median_ratio_silt_over_floor']:.3f} {'ok' if t['silt_over_floor']['ok'] else 'ABOVE TARGET'}"
                 f"  [{sp.get('ratio_basis', 'all pairs')}]"))
    if "silt_over_reference" in t:
        rows.append((f"ratio silt/reference, medians (target < {TARGET_REFERENCE})",
                     f"{sp['ratio_silt_over_reference']:.3f} {'ok' if t['silt_over_reference']['ok'] else 'ABOVE TARGET'}"
                     f"  [{sp.get('ratio_silt_over_reference_basis', 'all runs')}]"))
    rows.append(("JVM CPU seconds, medians silt / floor" + (" / reference" if "reference" in m else ""),
                 " / ".join(f"{statistics.median(a['jvm_cpu_s'] for a in sp['runs'][k]):.0f} s"
                            for k in ("silt", "floor", "reference") if k in sp["runs"])))
    if sp.get("median_task_cpu_s"):
        mt = {k: sp["median_task_cpu_s"][k] for k in ("silt", "floor", "reference") if k in sp["median_task_cpu_s"]}
        rows.append(("task CPU seconds (Spark executorCpuTime), medians " + " / ".join(mt),
                     " / ".join(f"{v:.1f} s" for v in mt.values())))
        if sp.get("task_cpu_ratio_silt_over_floor"):
            rows.append(("task CPU ratio silt/floor", f"{sp['task_cpu_ratio_silt_over_floor']:.3f}"))
        if sp.get("task_cpu_ratio_silt_over_reference"):
            rows.append(("task CPU ratio silt/reference", f"{sp['task_cpu_ratio_silt_over_reference']:.3f}"))
    if sp.get("median_jvm_cpu_ratio_silt_over_floor"):
        rows.append(("JVM CPU ratio silt/floor, median of pairs", f"{sp['median_jvm_cpu_ratio_silt_over_floor']:.3f}"))
    rows.append(("silt ZORDER BY (x, s) (one run)", f"{r['silt_zorder_xs']['seconds']:.2f} s"))
    rows.append(("linear sort (x, y) written by Silt (one run)", f"{r['linear_sort_seconds']:.2f} s"))
    if r.get("deltars"):
        tr = r["deltars"]["tries"][-1]
        rows.append((f"delta-rs z_order (target_size {tr['target_size']:,}) (one run)", f"{tr['seconds']:.2f} s"))
    w = [max(len(x[i]) for x in rows) for i in range(2)]
    for j, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(row)))
        if j == 0:
            lines.append("  ".join("-" * x for x in w))
    if sp.get("busy_machine_runs"):
        lines.append(f"WARNING: other processes used more than {LOAD_WARNING:.0%} of the CPUs during: "
                     f"{', '.join(sp['busy_machine_runs'])}; their seconds are not comparable")
    lines.append(f"input: {r['input']['files']} files, {r['input']['bytes'] / 2**20:.0f} MiB, {r['rows']:,} rows; "
                 f"maxFileSize {r['max_file_size']:,} bytes; all targets met: {r['all_targets_met']}")
    return lines


def summary_rows(r):
    """Rows (benchmark, measure, value) for bench/run.py's closing table."""
    q, t, sp = r["layout_files_scanned"]["silt_zorder_xy"], r["targets"], r["speed"]
    ok = lambda k: "ok" if t[k]["ok"] else "ABOVE TARGET"
    rows = [("optimize", f"ZORDER (x, y): files scanned, 1% range on x (target <= {TARGET_RANGE})", f"{q['range_x']:.3f} {ok('range_x')}"),
            ("optimize", f"ZORDER (x, y): files scanned, 1% range on y (target <= {TARGET_RANGE})", f"{q['range_y']:.3f} {ok('range_y')}"),
            ("optimize", f"ZORDER (x, y): files scanned, 1% box (target <= {TARGET_BOX})", f"{q['box_xy']:.3f} {ok('box_xy')}"),
            ("optimize", f"OPTIMIZE time ratio silt/floor (target <= {TARGET_FLOOR})",
             f"{sp['median_ratio_silt_over_floor']:.3f} {ok('silt_over_floor')}")]
    if "silt_over_reference" in t:
        rows.append(("optimize", f"OPTIMIZE time ratio silt/reference Delta (target < {TARGET_REFERENCE})",
                     f"{sp['ratio_silt_over_reference']:.3f} {ok('silt_over_reference')}"))
    return rows


def save(result):
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    result = dict(result, environment=environment())
    path = RESULTS_DIR / "optimize.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    return path


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        kind, pfile = argv[1], argv[2]
        params = json.loads(Path(pfile).read_text())
        out = {"silt": worker_silt, "reference": worker_reference}[kind](params)
        Path(params["out"]).write_text(json.dumps(out))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--reps", type=int, default=2, help="repetitions of Silt's OPTIMIZE and of the floor")
    ap.add_argument("--ref-reps", type=int, default=2, help="repetitions of the reference Delta OPTIMIZE")
    ap.add_argument("--queries", type=int, default=50, help="predicates of each kind")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference Delta Lake")
    ap.add_argument("--no-deltars", action="store_true", help="skip delta-rs")
    args = ap.parse_args(argv)
    (SCRATCH.parent).mkdir(parents=True, exist_ok=True)
    result = run_benchmark(args.rows, args.files, args.reps, args.ref_reps, args.queries,
                           reference=not args.no_reference, deltars=not args.no_deltars)
    path = save(result)
    print(f"  -> {path}\n")
    print("\n".join(report_lines(result)))
    print(f"\ntotal {result['total_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
