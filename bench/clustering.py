"""clustering: liquid clustering (`CLUSTER BY (x, y)`: Hilbert order, incremental OPTIMIZE) against
Silt's ZORDER BY (x, y) (Z-order, and Hilbert through spark.silt.optimize.zorder.curve) and the
reference Delta Lake's liquid clustering, on the optimize benchmark's data: the layout after a first
OPTIMIZE (the fraction of files a 1% range on x, on y and a 1% box on (x, y) must read) and its
time, then rounds of appending 10% new rows as 20 small files and optimizing again: bytes rewritten
and the layout after each round. Then Z-order against Hilbert order at file counts that are not
powers of 4 (Silt's files are whole blocks of the curve, the same for both curves, wherever a file
can be one; they differ where a file is a run of sibling blocks). Each engine runs in a child JVM of its own (bench/runner.py), one after the other.
"""
import argparse
import statistics
from pathlib import Path

from bench.common import SCRATCH_DIR, build_spark, link_copy, measure_and_save, rm, say, timed
from bench.layout_stats import evaluate, make_predicates, snapshot_files
from bench.optimize_runs import gen_frame
from bench.runner import call

SCRATCH = SCRATCH_DIR / "clustering"
KINDS = ("range_x", "range_y", "box_xy")
REFERENCE = "reference cluster by (x, y)"
# name: (statement, curve for ZORDER BY, whether the table is clustered by (x, y) first)
SILT_VARIANTS = {
    "zorder": ("OPTIMIZE {t} ZORDER BY (x, y)", None, False),
    "zorder (hilbert curve)": ("OPTIMIZE {t} ZORDER BY (x, y)", "hilbert", False),
    "cluster by (x, y)": ("OPTIMIZE {t}", None, True),
}
ENGINE = {  # engine: (format and SQL prefix, the setting of the OPTIMIZE's target file size)
    "silt": ("silt", "spark.silt.optimize.maxFileSize"),
    "delta": ("delta", "spark.databricks.delta.optimize.maxFileSize"),
}


def appended(spark, rows, offset, seed):
    """`rows` new rows of the benchmark's distribution (other random values), in 20 files."""
    df = gen_frame(spark, rows, 20)
    return df.selectExpr(f"id + {offset} AS id", f"rand({seed}) AS x", f"rand({seed + 1}) AS y", "z", "s", "k")


def table_bytes(path):
    return sum(f["size"] for f in snapshot_files(path)[0])


# ------------------------------------------------------------------ an engine's side (a child JVM)

def run_variant(spark, engine, path, statement, rows, rounds):
    """The first OPTIMIZE of `path`, then `rounds` of append + OPTIMIZE: seconds, bytes and the
    table's files (with their statistics) after each."""
    fmt, _ = ENGINE[engine]

    def optimize():
        secs, res = timed(lambda: spark.sql(statement.format(t=f"{fmt}.`{path}`")).collect())
        m = res[0]["metrics"]
        return secs, m["filesRemoved"]["totalSize"] or 0, m["numFilesRemoved"]

    secs, _, _ = optimize()
    out = {"first_optimize_seconds": secs, "first_files": snapshot_files(path)[0], "rounds": []}
    say(f"    first OPTIMIZE {secs:.1f} s, {len(out['first_files'])} files")
    for r in range(rounds):
        appended(spark, rows // 10, rows * (r + 1), 100 + 2 * r).write.format(fmt).mode("append").save(path)
        before = table_bytes(path)
        s, rewritten, removed = optimize()
        out["rounds"].append({"round": r + 1, "seconds": s, "bytes_rewritten": rewritten, "files_rewritten": removed,
                              "table_bytes_before": before, "files": snapshot_files(path)[0]})
        say(f"    round {r + 1}: rewrote {rewritten / before:.2f} of the table in {s:.1f} s")
    return out


def warm_up(spark, engine, scratch):
    """One small clustered OPTIMIZE, so that neither engine's first measured run pays for JIT."""
    fmt, size_conf = ENGINE[engine]
    warm = str(Path(scratch) / f"warm-{engine}")
    gen_frame(spark, 200_000, 8).write.format(fmt).mode("error").save(warm)
    spark.conf.set(size_conf, str(table_bytes(warm) // 8))
    spark.sql(f"ALTER TABLE {fmt}.`{warm}` CLUSTER BY (x, y)")
    s, _ = timed(lambda: spark.sql(f"OPTIMIZE {fmt}.`{warm}`").collect())
    say(f"  {engine} warm-up: {s:.1f} s")
    rm(warm)


def worker(p):
    """One engine's side in its own JVM. Silt's also writes the input table and samples the points
    the layouts are scored on; then each variant on a hard-linked copy of the input."""
    engine, scratch = p["engine"], Path(p["scratch"])
    fmt, size_conf = ENGINE[engine]
    spark = build_spark(engine)
    inp = scratch / "input"
    out = {}
    if engine == "silt":
        gen_frame(spark, p["rows"], p["files"]).write.format("silt").mode("error").save(str(inp))
        files = snapshot_files(inp)[0]
        out["input_bytes"] = sum(f["size"] for f in files)
        frac = min(1.0, 20.0 * p["queries"] / p["rows"])
        out["points"] = [r.asDict() for r in spark.read.format("silt").load(str(inp)).sample(False, frac, seed=11)
                         .select("x", "y", "s").limit(p["queries"]).collect()]
        out["domain"] = {c: (min(f["min"][c] for f in files), max(f["max"][c] for f in files)) for c in ("x", "y")}
    warm_up(spark, engine, scratch)
    input_bytes = p.get("input_bytes") or out["input_bytes"]
    spark.conf.set(size_conf, str(input_bytes // p["files"]))
    variants = SILT_VARIANTS if engine == "silt" else {REFERENCE: ("OPTIMIZE {t}", None, True)}
    out["variants"] = {}
    for name, (statement, curve, cluster) in variants.items():
        say(f"  {name}:")
        path = str(link_copy(inp, scratch / "".join(c if c.isalnum() else "_" for c in name)))
        if cluster:
            spark.sql(f"ALTER TABLE {fmt}.`{path}` CLUSTER BY (x, y)")
        if curve:
            spark.conf.set("spark.silt.optimize.zorder.curve", curve)
        try:
            out["variants"][name] = run_variant(spark, engine, path, statement, p["rows"], p["rounds"])
        finally:
            spark.conf.unset("spark.silt.optimize.zorder.curve")
        rm(path)
    if engine == "silt":
        out["curves"] = curve_layouts(spark, inp, scratch, input_bytes, p["curve_files"])
    spark.stop()
    return out


def curve_layouts(spark, inp, scratch, input_bytes, counts):
    """ZORDER BY (x, y) with each curve at each file count: {count: {curve: files}}."""
    out = {}
    for n in counts:
        spark.conf.set("spark.silt.optimize.maxFileSize", str(input_bytes // n))
        out[str(n)] = {}
        for curve in ("zorder", "hilbert"):
            path = str(link_copy(inp, scratch / f"curve-{n}-{curve}"))
            spark.conf.set("spark.silt.optimize.zorder.curve", curve)
            try:
                spark.sql(f"OPTIMIZE silt.`{path}` ZORDER BY (x, y)").collect()
            finally:
                spark.conf.unset("spark.silt.optimize.zorder.curve")
            out[str(n)][curve] = snapshot_files(path)[0]
            rm(path)
        say(f"  curves at {n} files: done")
    return out


# ------------------------------------------------------------------ the parent: runs both, compares

def scored(v, preds):
    """A variant's run with each layout scored (files replaced by the fractions) and its totals."""
    def lay(files):
        q = evaluate(files, preds)
        return {k: q[k] for k in KINDS} | {"files": q["files"]}

    rounds = [{k: x for k, x in h.items() if k != "files"} | {"layout": lay(h["files"]),
              "rewritten_fraction": h["bytes_rewritten"] / h["table_bytes_before"]} for h in v["rounds"]]
    return {"first_optimize_seconds": v["first_optimize_seconds"], "first_layout": lay(v["first_files"]),
            "rounds": rounds, "total_bytes_rewritten": sum(h["bytes_rewritten"] for h in rounds),
            "worst_layout_in_rounds": {k: max(h["layout"][k] for h in rounds) for k in KINDS} if rounds else None}


def run_benchmark(rows, files, rounds, queries, curve_files, reference=True):
    """Silt's child, then the reference's (on a copy of the same input), then the comparison."""
    rm(SCRATCH)
    SCRATCH.mkdir(parents=True)
    try:
        base = {"scratch": str(SCRATCH), "rows": rows, "files": files, "rounds": rounds, "queries": queries}
        say(f"clustering: Silt ({rows:,} rows, {files} files, {rounds} rounds):")
        silt = call("bench.clustering:worker", base | {"engine": "silt", "curve_files": curve_files},
                    "clustering-silt")
        runs = dict(silt["variants"])
        if reference:
            say("clustering: the reference Delta Lake:")
            ref = call("bench.clustering:worker", base | {"engine": "delta", "input_bytes": silt["input_bytes"]},
                       "clustering-reference")
            runs.update(ref["variants"])
    finally:
        rm(SCRATCH)
    preds = make_predicates(queries, silt["points"], silt["domain"])
    out = {"rows": rows, "files": files, "input_bytes": silt["input_bytes"],
           "variants": {k: scored(v, preds) for k, v in runs.items()}}
    out["curves"] = {n: {c: {k: q[k] for k in KINDS} | {"files": q["files"]}
                         for c, q in ((c, evaluate(fs, preds)) for c, fs in by_curve.items())}
                     for n, by_curve in silt["curves"].items()}
    v = out["variants"]
    c = v["cluster by (x, y)"]
    out["first_optimize_seconds_over_zorder"] = {k: x["first_optimize_seconds"] / v["zorder"]["first_optimize_seconds"]
                                                 for k, x in v.items()}
    if rounds:
        out["bytes_rewritten_over_clustering"] = {k: x["total_bytes_rewritten"] / max(1, c["total_bytes_rewritten"])
                                                  for k, x in v.items()}
        out["first_round_rewritten_fraction"] = {k: x["rounds"][0]["rewritten_fraction"] for k, x in v.items()}
        out["median_round_seconds"] = {k: statistics.median(h["seconds"] for h in x["rounds"]) for k, x in v.items()}
    for name, x in v.items():
        f = x["first_layout"]
        say(f"  {name}: first {x['first_optimize_seconds']:.1f} s, layout {f['range_x']:.3f} / {f['range_y']:.3f} / "
            f"{f['box_xy']:.3f}; rounds rewrote {x['total_bytes_rewritten'] / silt['input_bytes']:.2f}x the input")
    return out


def parser():
    """The clustering benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench clustering", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=10, help="rounds of 10%% appends and OPTIMIZE")
    ap.add_argument("--queries", type=int, default=50, help="predicates of each kind the layout is scored on")
    ap.add_argument("--curve-files", default="32,48,100",
                    help="file counts (comma-separated) at which Z-order and Hilbert order are compared")
    ap.add_argument("--no-reference", dest="reference", action="store_false", help="leave out the reference engine")
    return ap


def main(argv):
    """Runs the clustering benchmark; writes results/clustering.json and returns the result."""
    args = parser().parse_args(argv)
    counts = [int(n) for n in args.curve_files.split(",") if n.strip()]
    return measure_and_save(lambda: {"benchmark": "clustering", **run_benchmark(
        args.rows, args.files, args.rounds, args.queries, counts, args.reference)})


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = []
    for name, v in r["variants"].items():
        f = v["first_layout"]
        rows.append(("clustering", f"{name}: first OPTIMIZE, layout x / y / box",
                     f"{v['first_optimize_seconds']:.1f} s, {f['range_x']:.3f} / {f['range_y']:.3f} / {f['box_xy']:.3f}"))
        if v["rounds"]:
            w = v["worst_layout_in_rounds"]
            rows.append(("clustering", f"{name}: {len(v['rounds'])} rounds of 10% appends",
                         f"rewrote {v['total_bytes_rewritten'] / r['input_bytes']:.2f}x the input; worst layout "
                         f"{w['range_x']:.3f} / {w['range_y']:.3f} / {w['box_xy']:.3f}"))
    for n, by_curve in r.get("curves", {}).items():
        rows.append(("clustering", f"ZORDER at {n} files: z-order vs hilbert (x / y / box, files)",
                     "  vs  ".join(f"{q['range_x']:.3f} / {q['range_y']:.3f} / {q['box_xy']:.3f}, {q['files']}"
                                   for q in (by_curve["zorder"], by_curve["hilbert"]))))
    return rows
