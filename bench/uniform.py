"""uniform: what Iceberg metadata (UniForm) costs a commit, and how it grows with commits. Side by side in one
run, rotating: three tables of 1,000 files, one without UniForm, one with it (icebergCompatV2, Iceberg metadata
after each commit, in the background as by default: the statement's time, then the conversion is waited for
untimed, so that it does not slow the next statement), and one converting before the statement returns
(uniform.iceberg.sync.convert.enabled: the commit and its conversion); each takes an append of 1 row, an append
of 1 M rows and a MERGE of 1,000 rows; the target is 1.1x or less. Then a UniForm table taking many 1-row appends: after 10, 100 and all of them, the metadata a
reader reads to plan (the current vN.metadata.json, the manifest list and manifests it names), everything under
metadata/, and pyiceberg's planning time (StaticTable.from_metadata, plan_files).
"""
import argparse
import os
import statistics
import time
from pathlib import Path

from bench.common import SCRATCH_DIR, alternating, measure_and_save, say, timed

SCRATCH = SCRATCH_DIR / "uniform"
UNIFORM = {"delta.enableIcebergCompatV2": "true", "delta.universalFormat.enabledFormats": "iceberg"}


def create(spark, path, files, rows, uniform):
    props = ", ".join(f"'{k}' = '{v}'" for k, v in UNIFORM.items()) if uniform else ""
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, v STRING, p INT) USING delta PARTITIONED BY (p)"
              + (f" TBLPROPERTIES ({props})" if props else ""))
    (spark.range(rows).selectExpr("id", "concat('v', id) AS v", "CAST(id % 10 AS INT) AS p")
     .repartition(files // 10, "p", "id").write.format("silt").mode("append").save(path))


SYNC = "spark.databricks.delta.uniform.iceberg.sync.convert.enabled"


def run_as(spark, name, path, statement):
    """Times `statement` on the table of variant `name`; a background conversion is waited for after, untimed."""
    if name == "uniform_sync":
        spark.conf.set(SYNC, "true")
    try:
        seconds = timed(statement)[0]
    finally:
        spark.conf.unset(SYNC)
    if name == "uniform":
        assert spark._jvm.io.silt.uniform.IcebergConversions.awaitIdle(path, 600000)
    return seconds


def commit_costs(spark, files, rows, reps):
    tables = {"plain": str(SCRATCH / "plain"), "uniform": str(SCRATCH / "uniform"),
              "uniform_sync": str(SCRATCH / "uniform_sync")}
    for name, path in tables.items():
        say(f"  creating the {name} table ({files} files)")
        create(spark, path, files, rows, name != "plain")
        spark._jvm.io.silt.uniform.IcebergConversions.awaitIdle(path, 600000)
    big = spark.range(1_000_000).selectExpr("id + 100000000 AS id", "'b' AS v", "CAST(id % 10 AS INT) AS p").cache()
    big.count()
    ops = {
        "append of 1 row": lambda path, i: spark.sql(f"INSERT INTO delta.`{path}` VALUES ({-i - 1}, 'x', {i % 10})"),
        "append of 1 M rows": lambda path, i: big.write.format("silt").mode("append").save(path),
        "MERGE of 1,000 rows": lambda path, i: spark.sql(
            f"MERGE INTO delta.`{path}` t USING (SELECT id, 'm{i}' AS v FROM range({i * 1000}, {i * 1000 + 1000})) s "
            "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v"),
    }
    out = {}
    for op, run in ops.items():
        times = {name: [] for name in tables}
        for name in tables:  # once untimed on each table: the JVM's warm-up is no table's cost
            run_as(spark, name, tables[name], lambda: run(tables[name], reps[op]))
        for i in range(reps[op]):
            names = list(tables)
            for name in alternating(names[i % 3:] + names[:i % 3], i):
                times[name].append(run_as(spark, name, tables[name], lambda: run(tables[name], i)))
        med = {name: statistics.median(ts) for name, ts in times.items()}
        out[op] = {"seconds": times, "median_seconds": med, "ratio": med["uniform"] / med["plain"],
                   "ratio_converted": med["uniform_sync"] / med["plain"]}
        say(f"  {op}: plain {med['plain']:.3f} s, uniform {med['uniform']:.3f} s ({out[op]['ratio']:.2f}x), "
            f"converted before returning {med['uniform_sync']:.3f} s ({out[op]['ratio_converted']:.2f}x)")
    big.unpersist()
    return out


def metadata_now(path):
    """What a reader reads to plan the current snapshot, everything under metadata/, and pyiceberg's planning time."""
    from pyiceberg.table import StaticTable
    folder = Path(path) / "metadata"
    hint = (folder / "version-hint.text").read_text()
    current = folder / f"v{hint}.metadata.json"
    t0 = time.perf_counter()
    table = StaticTable.from_metadata(str(current))
    planned = list(table.scan().plan_files())
    plan_seconds = time.perf_counter() - t0
    snapshot = table.current_snapshot()
    manifests = snapshot.manifests(table.io)
    read_bytes = current.stat().st_size + os.path.getsize(snapshot.manifest_list.removeprefix("file:")) + sum(
        m.manifest_length for m in manifests)
    all_files = [f for f in folder.iterdir() if f.is_file() and not f.name.startswith(".")]
    return {"planning_seconds": plan_seconds, "data_files_planned": len(planned), "snapshots": len(table.metadata.snapshots),
            "manifests": len(manifests), "metadata_json_bytes": current.stat().st_size, "bytes_read_to_plan": read_bytes,
            "metadata_files": len(all_files), "metadata_bytes": sum(f.stat().st_size for f in all_files)}


def many_commits(spark, commits):
    path = str(SCRATCH / "commits")
    spark.sql(f"CREATE TABLE delta.`{path}` (id BIGINT) USING delta TBLPROPERTIES ("
              + ", ".join(f"'{k}' = '{v}'" for k, v in UNIFORM.items()) + ")")
    marks = sorted({m for m in (10, 100, commits) if m <= commits})
    out, times = {}, []
    for i in range(1, commits + 1):
        times.append(run_as(spark, "uniform", path, lambda: spark.sql(f"INSERT INTO delta.`{path}` VALUES ({i})")))
        if i in marks:
            out[str(i)] = dict(metadata_now(path), median_commit_seconds=statistics.median(times[-10:]))
            m = out[str(i)]
            say(f"  after {i} commits: plan {m['planning_seconds']:.3f} s, {m['manifests']} manifests, "
                f"{m['bytes_read_to_plan'] / 1024:.0f} KiB read to plan, {m['metadata_files']} files "
                f"({m['metadata_bytes'] / 1024:.0f} KiB) under metadata/")
    return out


def parser():
    """The uniform benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench uniform", description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000, help="files of the tables the commits go to")
    ap.add_argument("--rows", type=int, default=2_000_000, help="rows of those tables")
    ap.add_argument("--reps", type=int, default=15, help="repetitions of the 1-row append (5 of the others)")
    ap.add_argument("--commits", type=int, default=1000, help="1-row appends of the growth part")
    return ap


def main(argv):
    """Runs the uniform benchmark; writes results/uniform.json and returns the result."""
    args = parser().parse_args(argv)
    reps = {"append of 1 row": args.reps, "append of 1 M rows": 5, "MERGE of 1,000 rows": 5}

    def measure(spark):
        return {"benchmark": "uniform", "files": args.files, "rows": args.rows,
                "commit_cost": commit_costs(spark, args.files, args.rows, reps),
                "growth": many_commits(spark, args.commits)}
    return measure_and_save(measure, SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = [("uniform", f"{op}, uniform / plain", f"{c['ratio']:.2f}x ({c['median_seconds']['uniform']:.3f} s vs "
             f"{c['median_seconds']['plain']:.3f} s); converted before returning {c['ratio_converted']:.2f}x")
            for op, c in r["commit_cost"].items()]
    for n, g in r["growth"].items():
        rows.append(("uniform", f"after {n} commits: pyiceberg planning", f"{g['planning_seconds']:.3f} s, "
                     f"{g['manifests']} manifests, {g['bytes_read_to_plan'] / 1024:.0f} KiB read"))
    return rows
