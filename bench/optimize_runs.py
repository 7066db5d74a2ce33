"""The runs of the OPTIMIZE benchmark, one per engine: Silt and the plain-Spark floor (a child JVM),
the reference Delta Lake (a child JVM of its own), delta-rs (in the calling process); and the data
they all rewrite. bench/optimize.py runs them (the JVM ones through bench/runner.py) and compares
what they measured.
"""
import shutil
from pathlib import Path

from bench.common import alternating, build_spark, delta_package, rm, say, timed
from bench.layout_stats import (S_DIGITS, S_PREFIX, S_SPAN, files_from_delta_rs, parquet_footer_files,
                                snapshot_files)
from bench.machine_load import LOAD_WARNING, Accounting, in_process_run


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
    """Silt's side (its own JVM): the input table, Silt's OPTIMIZE and the floor alternating, the
    linear sort and ZORDER BY (x, s); returns their seconds, accountings and layouts."""
    scratch, rows, nfiles, reps = Path(p["scratch"]), p["rows"], p["files"], p["reps"]
    spark = build_spark("silt")
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
        for kind in alternating(("silt", "floor"), i):
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
    """The reference Delta Lake's side (its own JVM): a warm-up, then OPTIMIZE ZORDER BY (x, y) of
    each prepared copy; returns their seconds, accountings and metrics."""
    spark = build_spark("delta")
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
    out = {"delta_package": delta_package(), "seconds": [], "metrics": [], "runs": []}
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
        secs, metrics, other = in_process_run(
            lambda: DeltaTable(str(path)).optimize.z_order(["x", "y"], target_size=target))
        files, how = snapshot_files(path)
        tries.append({"target_size": target, "seconds": secs, "files": len(files), "other_load": other,
                      "numFilesAdded": metrics.get("numFilesAdded")})
        say(f"  delta-rs z_order, target_size {target:,}: {secs:.1f} s, {len(files)} files (other load {other:.0%})")
        if abs(len(files) - nfiles) <= max(1, nfiles // 16) or attempt == max_tries - 1:
            # cross-check the JSON replay with delta-rs' own reading of the table
            check = files_from_delta_rs(path)
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
