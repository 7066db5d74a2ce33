"""small_files: a stream of many small micro-batches into a partitioned table, plain and with
optimized writes, auto compaction, or both, in Silt and in the reference Delta Lake.

The source is a table of BATCHES commits of ROWS rows, each commit in SOURCE_FILES files (written
untimed by the engine under test); a stream reads it with maxFilesPerTrigger = SOURCE_FILES, so
BATCHES micro-batches, each of SOURCE_FILES tasks, go into a table partitioned by `p` (PARTITIONS
values), `Trigger.AvailableNow`. Each engine runs in its own JVM (the peers benchmark's settings),
the reference with its own optimized writes and auto compaction (Delta Lake's settings under the
same names), the configurations one after the other in one process after a small warm-up stream:

  plain          no option
  optimizeWrite  the stream's option optimizeWrite = true
  autoCompact    the table property delta.autoOptimize.autoCompact = true
  both           the two

Reported per engine and configuration: the stream's seconds, the files of the table after it, and a
full scan's seconds (count and sum); files and throughput relative to the same engine's plain run.
Targets (Silt): with auto compaction (alone or with optimized writes) files <= 1/10 of the plain
run's and stream throughput >= 0.8 of the plain run's.

    python -m bench small_files [--batches N] [--rows N] [--source-files N] [--partitions N]

A smoke run: `python -m bench small_files --batches 10`.
"""
import argparse
from pathlib import Path

from bench.common import ENGINES, SCRATCH_DIR, bench_session, measure_and_save, rm, say, timed
from bench.peers_engine import REFERENCE_CONF
from bench.runner import call

SCRATCH = SCRATCH_DIR / "small_files"
CONFIGS = ("plain", "optimizeWrite", "autoCompact", "both")
TARGET_FILES = 0.1        # files, at most this fraction of the plain run's
TARGET_THROUGHPUT = 0.8   # stream throughput, at least this fraction of the plain run's


def parser():
    """The small_files benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench small_files", description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=200, help="micro-batches (commits of the source)")
    ap.add_argument("--rows", type=int, default=1000, help="rows of a micro-batch")
    ap.add_argument("--source-files", type=int, default=4, help="files of a source commit (tasks of a micro-batch)")
    ap.add_argument("--partitions", type=int, default=10, help="values of the partition column")
    return ap


def write_source(spark, fmt, path, batches, rows, files):
    for b in range(batches):
        spark.range(b * rows, (b + 1) * rows, 1, files).selectExpr("id", "CAST(id * 7 % 1000 AS INT) AS v") \
            .write.format(fmt).mode("append").save(path)


def run_config(spark, fmt, folder, source, config, files, partitions):
    """Streams `source` into a new table under `config`; its seconds, files and a full scan's seconds."""
    target, checkpoint = str(folder / f"{config}-table"), str(folder / f"{config}-checkpoint")
    auto = config in ("autoCompact", "both")
    spark.sql(f"CREATE TABLE {fmt}.`{target}` (id BIGINT, v INT, p INT) USING {fmt} PARTITIONED BY (p)" +
              (" TBLPROPERTIES (delta.autoOptimize.autoCompact = true)" if auto else ""))
    writer = (spark.readStream.format(fmt).option("maxFilesPerTrigger", files).load(source)
              .selectExpr("id", "v", f"CAST(id % {partitions} AS INT) AS p").writeStream.format(fmt)
              .option("checkpointLocation", checkpoint).trigger(availableNow=True))
    if config in ("optimizeWrite", "both"):
        writer = writer.option("optimizeWrite", "true")

    def stream():
        q = writer.start(target)
        q.awaitTermination()
        return len([p for p in q.recentProgress if p["numInputRows"]])
    seconds, batches = timed(stream)
    table_files = spark.sql(f"DESCRIBE DETAIL {fmt}.`{target}`").first().numFiles
    scan_seconds, totals = timed(lambda: tuple(spark.read.format(fmt).load(target)
                                              .selectExpr("count(*)", "sum(id)", "sum(v)").first()))
    auto_ops = spark.sql(f"DESCRIBE HISTORY {fmt}.`{target}`").where("operation = 'OPTIMIZE'").count()
    return {"seconds": seconds, "micro_batches": batches, "files": table_files, "scan_seconds": scan_seconds,
            "totals": list(totals), "compactions": auto_ops}


def run_engine(p):
    """One engine's process: a warm-up stream, then each configuration on its own table."""
    engine, scratch = p["engine"], Path(p["scratch"])
    with bench_session(scratch, engine, REFERENCE_CONF if engine == "delta" else None) as spark:
        fmt = "silt" if engine == "silt" else "delta"
        warm = scratch / "warm"
        write_source(spark, fmt, str(warm / "source"), 5, p["rows"], p["source_files"])
        for config in CONFIGS:
            run_config(spark, fmt, warm, str(warm / "source"), config, p["source_files"], p["partitions"])
        source = str(scratch / "source")
        write_source(spark, fmt, source, p["batches"], p["rows"], p["source_files"])
        out = {}
        for config in CONFIGS:
            out[config] = run_config(spark, fmt, scratch, source, config, p["source_files"], p["partitions"])
            r = out[config]
            say(f"  {engine:5s} {config}: {r['seconds']:.1f} s, {r['files']} files, scan {r['scan_seconds']:.2f} s, "
                f"{r['compactions']} compactions")
        return {"engine": engine, "spark": spark.version, "configs": out}


def measure(args):
    """One process per engine, then the comparison; the scratch folder is gone afterwards."""
    rm(SCRATCH)
    try:
        outputs = {}
        for engine in ENGINES:
            params = {"engine": engine, "scratch": str(SCRATCH / engine), "batches": args.batches, "rows": args.rows,
                      "source_files": args.source_files, "partitions": args.partitions}
            outputs[engine] = call("bench.small_files:run_engine", params, f"small_files-{engine}")["configs"]
    finally:
        rm(SCRATCH)
    relative = {e: {c: {"files": o[c]["files"] / o["plain"]["files"],
                        "throughput": o["plain"]["seconds"] / o[c]["seconds"]} for c in CONFIGS}
                for e, o in outputs.items()}
    totals_agree = len({repr(o[c]["totals"]) for o in outputs.values() for c in CONFIGS}) == 1
    targets = {c: {"files": relative["silt"][c]["files"], "throughput": relative["silt"][c]["throughput"],
                   "ok": relative["silt"][c]["files"] <= TARGET_FILES and
                   relative["silt"][c]["throughput"] >= TARGET_THROUGHPUT} for c in ("autoCompact", "both")}
    return {"benchmark": "small_files", "batches": args.batches, "rows_per_batch": args.rows,
            "source_files": args.source_files, "partitions": args.partitions, "configs": list(CONFIGS),
            "runs": outputs, "relative_to_plain": relative, "totals_agree": totals_agree,
            "silt_over_reference_seconds": {c: outputs["silt"][c]["seconds"] / outputs["delta"][c]["seconds"]
                                            for c in CONFIGS},
            "targets": targets, "all_targets_met": all(t["ok"] for t in targets.values()) and totals_agree}


def main(argv):
    """Runs the small_files benchmark; writes results/small_files.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda: measure(args))


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = [("small_files", f"{r['batches']} micro-batches of {r['rows_per_batch']} rows into {r['partitions']} "
             "partitions: Silt / reference", "files; stream s; scan s")]
    for c in r["configs"]:
        s, d = r["runs"]["silt"][c], r["runs"]["delta"][c]
        t = r["targets"].get(c)
        verdict = "" if t is None else (" ok" if t["ok"] else " ABOVE TARGET")
        rows.append(("small_files", f"  {c}", f"{s['files']} / {d['files']}; {s['seconds']:.1f} / {d['seconds']:.1f}; "
                     f"{s['scan_seconds']:.2f} / {d['scan_seconds']:.2f}{verdict}"))
    if not r["totals_agree"]:
        rows.append(("small_files", "ANSWERS DIFFER", ""))
    return rows
