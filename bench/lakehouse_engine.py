"""The lakehouse benchmark inside one JVM: Silt, the reference Delta Lake, or plain Parquet (the floor).

A Delta engine loads the generated TPC-DS files into catalog tables, runs the queries once (run 0),
then each maintenance round followed by a run, then OPTIMIZE (unless told not to) and a last run,
and finally the queries again with the fact tables read as of their version before the rounds.
The floor runs the queries once over a copy of Silt's tables as loaded, read as Parquet.
bench/lakehouse.py starts one such process per engine (bench/runner.py).
"""
import hashlib
import time
from decimal import Decimal
from pathlib import Path

from bench import tpcds
from bench.common import bench_session, geomean, link_copy, say, timed
from bench.peers_engine import REFERENCE_CONF

DATABASE = "tpcds"
WARMUP_QUERIES = ("q3", "q42")  # run untimed before run 0, so that no run pays the JVM's warm-up
TIME_TRAVEL_QUERIES = 8  # the first queries of the list, run again as of the version before the rounds


def run(params):
    """One engine's phases (params: engine, sf, scratch, queries, rounds, props, optimize, floor_copy:
    where Silt copies its tables as loaded and the floor reads them); returns {phases: [...],
    load_versions} for the parent."""
    engine = params["engine"]
    meta = tpcds.generate(params["sf"])
    data = tpcds.data_dir(params["sf"])
    conf = dict(REFERENCE_CONF) if engine == "delta" else {}
    conf["spark.sql.autoBroadcastJoinThreshold"] = str(10 * 1024 * 1024)  # Spark's default, said out loud
    with bench_session(params["scratch"], engine="delta" if engine == "delta" else "silt", extra_conf=conf) as spark:
        if engine == "parquet":
            return floor(spark, params, meta)
        return delta_engine(spark, params, meta, data)


def floor(spark, params, meta):
    """Run 0 over the floor's copy of Silt's tables as loaded, read as plain Parquet files."""
    for t in meta["tables"]:
        spark.read.parquet(str(Path(params["floor_copy"]) / t)).createOrReplaceTempView(t)
    warm_up(spark, params["queries"], meta)
    return {"phases": [query_run(spark, "run 0", params["queries"], meta)]}


def delta_engine(spark, params, meta, data):
    """Load, run 0, the rounds each with a run, OPTIMIZE and a last run, time travel."""
    spark.sql(f"CREATE DATABASE {DATABASE} LOCATION '{Path(params['scratch']) / DATABASE}'")
    spark.sql(f"USE {DATABASE}")
    phases = []
    secs, per_table = timed(lambda: load(spark, meta, data, params["props"]))
    phases.append(dict(phase="load", seconds=secs, steps=per_table, tables=table_sizes(spark, meta)))
    versions = {t: latest_version(spark, t) for t in tpcds.FACTS}
    if params["engine"] == "silt" and params.get("floor_copy"):
        for t in meta["tables"]:
            link_copy(location(spark, t), Path(params["floor_copy"]) / t)
    warm_up(spark, params["queries"], meta)
    phases.append(query_run(spark, "run 0", params["queries"], meta))
    for r in range(1, params["rounds"] + 1):
        steps = {}
        for name, sql in tpcds.maintenance(meta, r, data):
            steps[name] = timed(lambda: spark.sql(sql).collect())[0]
        phases.append(dict(phase=f"maintenance {r}", seconds=sum(steps.values()), steps=steps,
                           tables=table_sizes(spark, meta)))
        say(f"    maintenance {r}: {sum(steps.values()):.1f} s")
        phases.append(query_run(spark, f"run {r}", params["queries"], meta))
    if params["optimize"]:
        steps = {t: timed(lambda: spark.sql(f"OPTIMIZE {t}").collect())[0] for t in tpcds.FACTS}
        phases.append(dict(phase="optimize", seconds=sum(steps.values()), steps=steps, tables=table_sizes(spark, meta)))
        say(f"    optimize: {sum(steps.values()):.1f} s")
        phases.append(query_run(spark, "final run", params["queries"], meta))
    for t, v in versions.items():
        spark.sql(f"CREATE OR REPLACE TEMP VIEW {t} AS SELECT * FROM {DATABASE}.{t} VERSION AS OF {v}")
    phases.append(query_run(spark, "time travel", params["queries"][:TIME_TRAVEL_QUERIES], meta))
    return {"phases": phases, "load_versions": versions}


def load(spark, meta, data, props):
    """Every table created from its generated files; {table: seconds}."""
    out = {}
    for t in meta["tables"]:
        out[t] = timed(lambda: spark.sql(tpcds.create_statement(t, data / t, props, clustered=True)).collect())[0]
    say(f"    load: {sum(out.values()):.1f} s")
    return out


def warm_up(spark, queries, meta):
    for q in WARMUP_QUERIES:
        if q in queries:
            spark.sql(meta["queries"][q]).collect()


def query_run(spark, name, queries, meta):
    """The queries once, one after the other: {phase, seconds, queries: {q: {seconds, rows, checksum, ...}}}."""
    out = {}
    for q in queries:
        t0 = time.perf_counter()
        try:
            df = spark.sql(meta["queries"][q])
            rows = df.collect()
        except Exception as e:  # a query this Spark cannot run: recorded, and left out of every comparison
            out[q] = {"error": error_text(e)}
            continue
        secs = time.perf_counter() - t0
        out[q] = dict(seconds=secs, rows=len(rows), checksum=checksum(rows), **plan_facts(df))
    total = sum(v.get("seconds", 0.0) for v in out.values())
    ok = [v["seconds"] for v in out.values() if "seconds" in v]
    say(f"    {name}: {total:.1f} s, {len(ok)} queries, geometric mean {geomean(ok):.3f} s")
    return {"phase": name, "seconds": total, "queries": out}


def error_text(e):
    """What failed: the JVM's exception (class and message) when there is one, not Py4J's "An error occurred"."""
    java = getattr(e, "java_exception", None)
    text = java.toString() if java is not None else str(e)
    return text.strip()[:1000]


def checksum(rows):
    """A digest of a result that ignores row order and a double's last digits (engines may sum doubles in another order)."""
    def norm(v):
        if isinstance(v, float):
            return f"{v:.9g}"
        if isinstance(v, Decimal):
            return str(v.normalize()) if v == v else "NaN"
        return repr(v)
    lines = sorted("|".join(norm(v) for v in r) for r in rows)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def plan_facts(df):
    """The executed plan's joins by kind, and the milliseconds Spark spent planning (analysis,
    optimization, physical planning): what tells whether the planner had the tables' sizes."""
    qe = df._jdf.queryExecution()
    plan = qe.executedPlan().toString().split("== Initial Plan ==")[0]  # AQE's final plan only
    phases = qe.tracker().phases()
    planning = 0
    for p in ("analysis", "optimization", "planning"):
        got = phases.get(p)
        if got.isDefined():
            planning += got.get().durationMs()
    return {"broadcast_joins": plan.count("BroadcastHashJoin") + plan.count("BroadcastNestedLoopJoin"),
            "sort_merge_joins": plan.count("SortMergeJoin"), "shuffled_hash_joins": plan.count("ShuffledHashJoin"),
            "planning_ms": planning}


def location(spark, table):
    """A table's folder, from DESCRIBE DETAIL."""
    loc = spark.sql(f"DESCRIBE DETAIL {table}").collect()[0]["location"]
    return Path(loc.replace("file://", "").replace("file:", ""))


def latest_version(spark, table):
    return spark.sql(f"DESCRIBE HISTORY {table} LIMIT 1").collect()[0]["version"]


def table_sizes(spark, meta):
    """The fact tables' files and bytes as their snapshots count them (DESCRIBE DETAIL)."""
    files = size = 0
    for t in tpcds.FACTS:
        d = spark.sql(f"DESCRIBE DETAIL {t}").collect()[0]
        files, size = files + d["numFiles"], size + d["sizeInBytes"]
    return {"fact_files": files, "fact_bytes": size}
