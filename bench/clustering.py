"""clustering: liquid clustering (`CLUSTER BY (x, y)`, Hilbert order, incremental OPTIMIZE) against
Silt's ZORDER BY (x, y) (Z-order, and Hilbert through spark.silt.optimize.zorder.curve) on the
optimize benchmark's data: the layout after a first OPTIMIZE (the fraction of files a 1% range on x,
on y and a 1% box on (x, y) must read), its time, then rounds of appending 10% new rows as 20 small
files and optimizing again: bytes rewritten and the layout after each round. Silt only (the
reference engine's clustering is still to be added).
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, link_copy, measure_and_save, rm, say, timed
from bench.layout_stats import evaluate, make_predicates, snapshot_files
from bench.optimize_runs import gen_frame

SCRATCH = SCRATCH_DIR / "clustering"
KINDS = ("range_x", "range_y", "box_xy")


def layout(path, preds):
    """The fraction of files each kind of predicate must read, from the table's statistics."""
    files, _ = snapshot_files(path)
    q = evaluate(files, preds)
    return {k: q[k] for k in KINDS} | {"files": q["files"]}


def appended(spark, rows, offset, seed):
    """`rows` new rows of the benchmark's distribution (other random values), in 20 files."""
    df = gen_frame(spark, rows, 20)
    return df.selectExpr(f"id + {offset} AS id", f"rand({seed}) AS x", f"rand({seed + 1}) AS y", "z", "s", "k")


def optimize(spark, path, statement):
    secs, rows = timed(lambda: spark.sql(statement.format(t=f"silt.`{path}`")).collect())
    m = rows[0]["metrics"]
    return secs, m["filesRemoved"]["totalSize"] or 0, m["numFilesRemoved"]


def table_bytes(path):
    return sum(f["size"] for f in snapshot_files(path)[0])


def bench_clustering(spark, rows, nfiles, rounds, queries):
    inp = str(SCRATCH / "input")
    rm(SCRATCH)
    gen_frame(spark, rows, nfiles).write.format("silt").mode("error").save(inp)
    files, _ = snapshot_files(inp)
    total = sum(f["size"] for f in files)
    spark.conf.set("spark.silt.optimize.maxFileSize", str(total // nfiles))
    pts = [r.asDict() for r in spark.read.format("silt").load(inp).sample(False, min(1.0, 20.0 * queries / rows), seed=11)
           .select("x", "y", "s").limit(queries).collect()]
    domain = {c: (min(f["min"][c] for f in files), max(f["max"][c] for f in files)) for c in ("x", "y")}
    preds = make_predicates(queries, pts, domain)
    variants = {
        "zorder": ("OPTIMIZE {t} ZORDER BY (x, y)", None),
        "zorder (hilbert curve)": ("OPTIMIZE {t} ZORDER BY (x, y)", "hilbert"),
        "cluster by (x, y)": ("OPTIMIZE {t}", None),
    }
    out = {"rows": rows, "files": nfiles, "input_bytes": total, "variants": {}}
    for name, (statement, curve) in variants.items():
        path = str(link_copy(inp, SCRATCH / name.replace(" ", "_").replace("(", "").replace(")", "").replace(",", "")))
        if name.startswith("cluster"):
            spark.sql(f"ALTER TABLE silt.`{path}` CLUSTER BY (x, y)")
        if curve:
            spark.conf.set("spark.silt.optimize.zorder.curve", curve)
        try:
            secs, _, _ = optimize(spark, path, statement)
            first = layout(path, preds)
            say(f"  {name}: first OPTIMIZE {secs:.1f} s, layout {first}")
            history = []
            for r in range(rounds):
                appended(spark, rows // 10, rows * (r + 1), 100 + 2 * r).write.format("silt").mode("append").save(path)
                before = table_bytes(path)
                s, rewritten, removed = optimize(spark, path, statement)
                history.append({"round": r + 1, "seconds": s, "bytes_rewritten": rewritten, "files_rewritten": removed,
                                "table_bytes_before": before, "rewritten_fraction": rewritten / before,
                                "layout": layout(path, preds)})
                say(f"  {name} round {r + 1}: rewrote {rewritten / before:.2f} of the table in {s:.1f} s, "
                    f"layout {history[-1]['layout']}")
        finally:
            spark.conf.unset("spark.silt.optimize.zorder.curve")
        out["variants"][name] = {"first_optimize_seconds": secs, "first_layout": first, "rounds": history,
                                 "total_bytes_rewritten": sum(h["bytes_rewritten"] for h in history),
                                 "worst_layout_in_rounds": {k: max(h["layout"][k] for h in history) for k in KINDS}
                                 if history else None}
    z, c = out["variants"]["zorder"], out["variants"]["cluster by (x, y)"]
    if rounds:
        out["zorder_bytes_over_clustering_bytes"] = z["total_bytes_rewritten"] / max(1, c["total_bytes_rewritten"])
        out["first_round_rewritten_fraction"] = c["rounds"][0]["rewritten_fraction"]
        out["median_round_seconds"] = {k: statistics.median(h["seconds"] for h in v["rounds"])
                                       for k, v in out["variants"].items()}
    return out


def parser():
    """The clustering benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench clustering", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--files", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=10, help="rounds of 10%% appends and OPTIMIZE")
    ap.add_argument("--queries", type=int, default=50, help="predicates of each kind the layout is scored on")
    return ap


def main(argv):
    """Runs the clustering benchmark; writes results/clustering.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: {"benchmark": "clustering", **bench_clustering(
        spark, args.rows, args.files, args.rounds, args.queries)}, SCRATCH)


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
    if "zorder_bytes_over_clustering_bytes" in r:
        rows.append(("clustering", "bytes rewritten: ZORDER / clustering",
                     f"{r['zorder_bytes_over_clustering_bytes']:.1f}x (first round: clustering rewrote "
                     f"{r['first_round_rewritten_fraction']:.2f} of the table)"))
    return rows
