"""The peers benchmark inside one engine's JVM (Silt, or the reference Delta Lake): the same
operations on the same data, a warm-up pass at a small size first, then one timed pass.
bench/peers.py starts one such process per engine and repetition (bench/runner.py).
"""
import shutil
from pathlib import Path

from pyspark.sql.functions import coalesce, col, expr

from bench.common import bench_session, folder_stats, rm, say, timed
from bench.dv import PREDICATE  # DELETE and UPDATE: 0.1% of the rows, in every file
from bench.machine_load import Accounting
from bench.write import MIXED_COLUMNS, write_frame

# The timed operations, in the order they run.
OPERATIONS = ("write", "scan", "point", "delete_dv", "update_dv", "delete_cow", "merge_dv", "merge_cow", "optimize")
# The reference Delta Lake as the interop tests configure it (tests/interop/reference_delta.py):
# Delta rebuilds a snapshot's state with a shuffle of 50 partitions by default, far too many on 2
# cores, and every DML here opens a path it has never seen.
REFERENCE_CONF = {"spark.databricks.delta.snapshotPartitions": "2"}


def totals(spark, fmt, path, where=None):
    """count(*) and sum(price) (an exact decimal) of a table: what each engine must agree on."""
    df = spark.read.format(fmt).load(str(path))
    return totals_of(df.where(where) if where else df)


# The floors: plain Spark doing the physical work of an operation on the same Parquet files (no
# log, no statistics, no transaction). No engine can go much below them.
FLOORS = ("scan", "delete_cow", "merge_cow")


def floor_work(spark, op, base, out):
    """Plain Spark doing what `op` does to the files of table `base`, its output under `out`."""
    t = spark.read.parquet(str(base))
    if op == "scan":
        return totals_of(t)
    if op == "delete_cow":
        return t.where(f"NOT ({PREDICATE})").write.parquet(str(out))
    s = spark.table("peers_src")
    updated = t.join(s.select([s[c].alias(f"s_{c}") for c in s.columns]), t["id"] == col("s_id"), "left_outer") \
        .select([coalesce(col(f"s_{c}"), t[c]).alias(c) if c != "id" else t[c] for c in t.columns])
    inserted = s.join(t.select("id"), "id", "left_anti")
    return updated.unionByName(inserted).write.parquet(str(out))


def totals_of(df):
    r = df.selectExpr("count(*) AS n", "sum(price) AS s").collect()[0]
    return [r["n"], str(r["s"])]


# MERGE of the upserts (merge_source) into a table with or without deletion vectors.
MERGE = ("MERGE INTO {t} t USING peers_src s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")


def merge_source(spark, rows):
    """1% of the rows as upserts: half existing ids (every 200th, scattered), half new ids."""
    n = max(rows // 200, 1)
    ids = spark.range(0, 2 * n, 1, 2).selectExpr(
        f"CASE WHEN id % 2 = 0 THEN (id DIV 2) * 200 + 3 ELSE {rows} + id DIV 2 END AS id")
    return ids.selectExpr(*MIXED_COLUMNS).withColumn("price", expr("CAST(price + 1 AS DECIMAL(10,2))"))


def one_pass(spark, acct, fmt, folder, rows, files, small_files):
    """Every operation once on tables under `folder`; {op: {seconds, answer, run, ...}}."""
    ref = lambda p: f"{fmt}.`{p}`"
    run = acct.run if acct else (lambda fn: timed(fn) + (None,))
    base, base_dv, small = folder / "base", folder / "base_dv", folder / "small"
    out = {}

    def record(op, fn, check=None, **extra):
        secs, res, a = run(fn)
        out[op] = dict(extra, seconds=secs, run=a, answer=totals(spark, fmt, check) if check else res)
        return res

    record("write", lambda: write_frame(spark, rows, files).write.format(fmt).mode("error").save(str(base)), base)
    # Untimed: the same rows in a table with deletion vectors, the small-file table, the MERGE source.
    write_frame(spark, rows, files).createOrReplaceTempView("peers_frame")
    spark.sql(f"CREATE TABLE {ref(base_dv)} USING {fmt} "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true') AS SELECT * FROM peers_frame")
    write_frame(spark, max(rows // 10, small_files), small_files).write.format(fmt).mode("error").save(str(small))
    merge_source(spark, rows).createOrReplaceTempView("peers_src")

    record("scan", lambda: totals(spark, fmt, base))
    floors = {}
    for op in FLOORS:  # timed as the operations are, in this engine's JVM
        secs, _, a = run(lambda: floor_work(spark, op, base, folder / f"floor-{op}"))
        floors[op] = {"seconds": secs, "run": a}
        rm(folder / f"floor-{op}")
    record("point", lambda: totals(spark, fmt, base, f"id = {rows // 2 + 17}"))
    statements = {
        "delete_dv": (base_dv, f"DELETE FROM {{t}} WHERE {PREDICATE}"),
        "update_dv": (base_dv, f"UPDATE {{t}} SET price = CAST(price + 1 AS DECIMAL(10,2)) WHERE {PREDICATE}"),
        "delete_cow": (base, f"DELETE FROM {{t}} WHERE {PREDICATE}"),
        "merge_dv": (base_dv, MERGE),
        "merge_cow": (base, MERGE),
        "optimize": (small, "OPTIMIZE {t}"),
    }
    for op, (source, sql) in statements.items():
        path = folder / op
        shutil.copytree(source, path)  # a fresh real copy: the same work every time, at a new path
        res = record(op, lambda: spark.sql(sql.format(t=ref(path))).collect(), path)
        out[op].update(dv_files=folder_stats(path, "*.bin")[0], parquet_files=folder_stats(path, "*.parquet")[0])
        if op == "optimize":
            m = (res[0].asDict(recursive=True).get("metrics") if res else None) or {}
            out[op].update(files_added=m.get("numFilesAdded"), files_removed=m.get("numFilesRemoved"))
        rm(path)
    return out, floors


def run_engine(p):
    """One engine's process: p["warmups"] passes at p["warmup_rows"], then the timed pass."""
    engine, scratch = p["engine"], Path(p["scratch"])
    with bench_session(scratch, engine, REFERENCE_CONF if engine == "delta" else None) as spark:
        acct = Accounting(spark)
        warm = []
        for w in range(p["warmups"]):
            got, _ = one_pass(spark, None, engine, scratch / f"warm-{w}", p["warmup_rows"], p["files"], p["small_files"])
            warm.append({op: v["seconds"] for op, v in got.items()})
        out, floors = one_pass(spark, acct, engine, scratch / "run", p["rows"], p["files"], p["small_files"])
        say(f"  {engine:5s} rep {p['rep']}: " + ", ".join(f"{op} {v['seconds']:.2f}" for op, v in out.items()) + " s")
        return {"engine": engine, "spark": spark.version, "ops": out, "floors": floors, "warmup_seconds": warm}
