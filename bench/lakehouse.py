"""lakehouse: TPC-DS loaded, queried and maintained for rounds, Silt side by side with the reference.

LST-Bench's workload (Microsoft, SIGMOD 2024) on Spark: TPC-DS at scale factor SF, generated once
by DuckDB's tpcds extension (bench/tpcds.py), loaded into catalog tables with deletion vectors on,
the fact tables clustered by their date key and written in its order. Each engine, in a JVM of its
own, then runs the same statements (bench/lakehouse_engine.py):

  load          CREATE TABLE … AS SELECT of the 24 tables from the generated Parquet files
  run 0         the TPC-DS queries, one after the other (single user)
  maintenance r TPC-DS's refresh functions as MERGE and DELETE: per channel a MERGE of a week of sales
                as new orders and two days restated, a MERGE of their returns, a MERGE restating
                inventory; then a week of sales deleted with their returns (a MERGE … DELETE, as
                Delta takes no subquery in a DELETE) and that week's inventory
  run r         the queries again, after each round
  optimize      OPTIMIZE of the 7 fact tables (clustering them), then the final run
  time travel   the first queries with the fact tables read as of their version before the rounds

The floor: the same queries over a copy of Silt's tables as loaded, read as plain Parquet (same
files, no log). With --autocompact, a fourth run: Silt with `delta.autoOptimize.autoCompact` on
its tables and no manual OPTIMIZE.

Reported per phase and engine: wall time, per-query times and their geometric mean over the queries
every engine answered, the fact tables' files and bytes, the joins the planner chose, and the slope
of the geometric mean across runs 0..N (degradation per round, a share of run 0). Every query's
answer (rows and a checksum) is compared between the engines in each phase, and time travel's with
run 0's. Targets, in one run: Silt's load and maintenance <= 0.7x the reference's time, each query
run <= 1.0x, degradation <= half the reference's; with auto compaction, every run within 1.1x of
run 0 without OPTIMIZE.

    python -m bench lakehouse [--sf 1] [--rounds 3] [--queries all|q3,q7,…] [--autocompact] [--name lakehouse]
"""
import argparse
from pathlib import Path

from bench import tpcds
from bench.common import REPO_ROOT, SCRATCH_DIR, delta_package, geomean, measure_and_save, rm, say
from bench.runner import call

SCRATCH = SCRATCH_DIR / "lakehouse"
DV = {"delta.enableDeletionVectors": "true"}
# A run: the engine its JVM loads, its tables' properties, and whether it runs OPTIMIZE.
RUNS = {
    "silt": ("silt", DV, True),
    "delta": ("delta", DV, True),
    "floor": ("parquet", None, False),
    "silt_autocompact": ("silt", dict(DV, **{"delta.autoOptimize.autoCompact": "true"}), False),
}
TARGETS = {"load": 0.7, "maintenance": 0.7, "query run": 1.0, "degradation": 0.5, "autocompact": 1.1}
PLOT = REPO_ROOT / "docs" / "lakehouse-rounds.png"


def parser():
    """The lakehouse benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench lakehouse", description=__doc__.splitlines()[0])
    ap.add_argument("--sf", type=float, default=1.0, help="TPC-DS scale factor")
    ap.add_argument("--rounds", type=int, default=3, help="data-maintenance rounds")
    ap.add_argument("--queries", default="all", help="'all', or names such as q3,q7,q42")
    ap.add_argument("--autocompact", action="store_true", help="also Silt with auto compaction and no OPTIMIZE")
    ap.add_argument("--plot", default=None,
                    help="where the picture of query time by round goes ('' for none; by default the docs' picture, "
                         "for the result named lakehouse only, which the docs quote)")
    ap.add_argument("--name", default="lakehouse",
                    help="the result's name: bench/results/<name>.json (another name keeps the full run's file)")
    return ap


def query_names(meta, spec):
    """The queries to run, in TPC-DS's order."""
    names = sorted(meta["queries"], key=lambda q: int(q[1:]))
    if spec == "all":
        return names
    wanted = [q.strip() for q in spec.split(",") if q.strip()]
    unknown = [q for q in wanted if q not in meta["queries"]]
    if unknown:
        raise SystemExit(f"unknown queries {unknown}; TPC-DS has q1 … q{len(names)}")
    return wanted


def measure(args):
    """Generates the data, runs every engine's process, compares them; returns the result."""
    meta = tpcds.generate(args.sf)
    queries = query_names(meta, args.queries)
    runs = ["silt", "delta", "floor"] + (["silt_autocompact"] if args.autocompact else [])
    rm(SCRATCH)
    floor_copy = SCRATCH / "floor-source"
    out = {}
    try:
        for name in runs:
            engine, props, optimize = RUNS[name]
            say(f"  {name}:")
            out[name] = call("bench.lakehouse_engine:run", dict(
                engine=engine, sf=args.sf, scratch=str(SCRATCH / name), queries=queries,
                rounds=args.rounds if engine != "parquet" else 0, props=props or {}, optimize=optimize,
                floor_copy=str(floor_copy) if name in ("silt", "floor") else None), f"lakehouse-{name}")
    finally:
        rm(SCRATCH)
    return summarize(args, meta, queries, out)


def phases_of(run):
    return {p["phase"]: p for p in run["phases"]}


def summarize(args, meta, queries, out):
    """The result: each run's phases, the comparisons and the targets."""
    by_run = {name: phases_of(r) for name, r in out.items()}
    # The queries every run answered in every query phase: the ones the geometric means are over.
    common = [q for q in queries if all("seconds" in p["queries"].get(q, {}) for ph in by_run.values()
                                        for n, p in ph.items() if "queries" in p and n != "time travel")]
    failed = sorted(set(queries) - set(common), key=lambda q: int(q[1:]))
    run_names = ["run 0"] + [f"run {r}" for r in range(1, args.rounds + 1)]
    engines = {}
    for name, ph in by_run.items():
        e = {"phases": {}, "load_versions": out[name].get("load_versions")}
        for pname, p in ph.items():
            row = {"seconds": p["seconds"]}
            if "queries" in p:
                qs = [q for q in common if q in p["queries"]]
                row.update(geomean_seconds=geomean([p["queries"][q]["seconds"] for q in qs]),
                           queries=p["queries"],
                           planning_ms=sum(p["queries"][q].get("planning_ms", 0) for q in qs),
                           broadcast_joins=sum(p["queries"][q].get("broadcast_joins", 0) for q in qs),
                           sort_merge_joins=sum(p["queries"][q].get("sort_merge_joins", 0) for q in qs))
            for k in ("steps", "tables"):
                if k in p:
                    row[k] = p[k]
            e["phases"][pname] = row
        series = [e["phases"][r]["geomean_seconds"] for r in run_names if r in e["phases"]]
        e["series"] = series
        e["degradation_per_round"] = slope(series) / series[0] if len(series) > 1 and series[0] else None
        engines[name] = e
    result = {"benchmark": "lakehouse", "reference": delta_package(), "sf": args.sf, "rounds": args.rounds, "queries": queries,
              "common_queries": common, "failed_queries": failed,
              "query_errors": {q: first_error(out, q) for q in failed},
              "rows": meta["rows"], "engines": engines,
              "answers": compare_answers(by_run, common)}
    result["ratios"], result["targets"] = targets(engines, run_names)
    result["slowest_vs_reference"] = slower_queries(by_run, common)
    return result


def first_error(out, q):
    for name, r in out.items():
        for p in r["phases"]:
            err = p.get("queries", {}).get(q, {}).get("error")
            if err:
                return f"{name}, {p['phase']}: {err}"
    return None


def slope(ys):
    """The least-squares slope of ys over 0, 1, 2, …"""
    n = len(ys)
    mx, my = (n - 1) / 2, sum(ys) / n
    return sum((i - mx) * (y - my) for i, y in enumerate(ys)) / sum((i - mx) ** 2 for i in range(n))


def compare_answers(by_run, common):
    """Queries whose answer (rows, checksum) differs: between Silt and each other run in each phase
    both have, and between each Delta engine's time travel and its own run 0."""
    key = lambda v: (v.get("rows"), v.get("checksum"))
    diffs = {}
    silt = by_run["silt"]
    for name, ph in by_run.items():
        if name == "silt":
            continue
        for pname, p in ph.items():
            if "queries" in p and pname in silt:
                d = [q for q in common if q in p["queries"] and key(p["queries"][q]) != key(silt[pname]["queries"][q])]
                if d:
                    diffs[f"{name} vs silt, {pname}"] = d
    for name, ph in by_run.items():
        if "time travel" in ph:
            tt = ph["time travel"]["queries"]
            d = [q for q in tt if key(tt[q]) != key(ph["run 0"]["queries"][q])]  # a failed query differs too
            if d:
                diffs[f"{name} time travel vs its run 0"] = d
    return {"agree": not diffs, "differences": diffs}


def targets(engines, run_names):
    """Silt over the reference per measure, and whether each target holds."""
    s, d = engines["silt"]["phases"], engines["delta"]["phases"]
    maint = lambda ph: sum(v["seconds"] for k, v in ph.items() if k.startswith("maintenance"))
    ratios = {"load": s["load"]["seconds"] / d["load"]["seconds"]}
    if maint(d):
        ratios["maintenance"] = maint(s) / maint(d)
    for r in run_names + ["final run", "time travel"]:
        if r in s and r in d:
            ratios[f"{r} (geometric mean)"] = s[r]["geomean_seconds"] / d[r]["geomean_seconds"]
    if "run 0" in engines.get("floor", {}).get("phases", {}):
        ratios["run 0 over the Parquet floor"] = s["run 0"]["geomean_seconds"] / engines["floor"]["phases"]["run 0"]["geomean_seconds"]
    out = {"load": ok(ratios["load"], TARGETS["load"])}
    if "maintenance" in ratios:
        out["maintenance"] = ok(ratios["maintenance"], TARGETS["maintenance"])
    worst = max(v for k, v in ratios.items() if k.endswith("(geometric mean)"))
    out["query run"] = ok(worst, TARGETS["query run"])
    ds, dd = engines["silt"]["degradation_per_round"], engines["delta"]["degradation_per_round"]
    if ds is not None and dd is not None:
        # Half the reference's degradation; when the reference does not degrade, Silt must not either.
        out["degradation"] = dict(value=ds, target=max(dd, 0.0) * TARGETS["degradation"],
                                  ok=ds <= max(dd, 0.0) * TARGETS["degradation"])
    ac = engines.get("silt_autocompact")
    if ac and ac["series"]:
        drift = max(ac["series"]) / ac["series"][0]
        ratios["auto compaction: slowest run over run 0"] = drift
        out["autocompact"] = ok(drift, TARGETS["autocompact"])
    return ratios, out


def ok(value, target):
    return {"value": value, "target": target, "ok": value <= target}


def slower_queries(by_run, common, top=10):
    """The queries where Silt is slowest against the reference and against the floor (run 0 and
    the last run both engines have), largest ratio first."""
    out = {}
    for other, phase in (("delta", "run 0"), ("delta", "final run"), ("floor", "run 0")):
        if other not in by_run or phase not in by_run[other] or phase not in by_run["silt"]:
            continue
        a, b = by_run["silt"][phase]["queries"], by_run[other][phase]["queries"]
        ratios = sorted(((a[q]["seconds"] / b[q]["seconds"], q) for q in common
                         if "seconds" in a.get(q, {}) and "seconds" in b.get(q, {})), reverse=True)
        out[f"{other}, {phase}"] = [dict(query=q, ratio=r, silt=a[q]["seconds"], other=b[q]["seconds"])
                                    for r, q in ratios[:top]]
    return out


def plot(result, path):
    """Query time (geometric mean) by run for each Delta engine: the picture of degradation."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=110)
    ticks = []
    labels = {"silt": "Silt", "delta": "Delta Lake (reference)", "silt_autocompact": "Silt, auto compaction"}
    for name, e in result["engines"].items():
        if name not in labels:
            continue
        names = [f"run {i}" for i in range(len(e["series"]))] + (["final run"] if "final run" in e["phases"] else [])
        ys = [e["phases"][n]["geomean_seconds"] for n in names]
        ax.plot(range(len(ys)), ys, marker="o", label=labels[name])
        ticks = max(ticks, names, key=len)
    ax.set_xticks(range(len(ticks)), [n.replace("final run", "after OPTIMIZE") for n in ticks])
    floor = result["engines"].get("floor", {}).get("phases", {}).get("run 0")
    if floor:
        ax.axhline(floor["geomean_seconds"], color="grey", linestyle=":", label="Parquet floor (run 0)")
    ax.set_ylabel("query time, geometric mean (s)")
    ax.set_title(f"TPC-DS SF {result['sf']:g}: {len(result['common_queries'])} queries after each maintenance round")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    say(f"  -> {path}")


def main(argv):
    """Runs the lakehouse benchmark; writes results/<name>.json (and the picture) and returns the result."""
    args = parser().parse_args(argv)
    result = measure_and_save(lambda: measure(args), name=args.name)
    where = args.plot if args.plot is not None else (str(PLOT) if args.name == "lakehouse" else "")
    if where:
        plot(result, Path(where))
    return result


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = [("lakehouse", f"TPC-DS SF {r['sf']:g}, {len(r['common_queries'])} queries, {r['rounds']} rounds: Silt / reference",
             "ratio")]
    for k, v in r["ratios"].items():
        rows.append(("lakehouse", f"  {k}", f"{v:.2f}"))
    for k, t in r["targets"].items():
        rows.append(("lakehouse", f"  target {k} <= {t['target']:.2f}", f"{t['value']:.2f} {'ok' if t['ok'] else 'MISSED'}"))
    rows.append(("lakehouse", "  answers", "agree" if r["answers"]["agree"] else "DIFFER"))
    return rows
