"""checkpoint_million: CHECKPOINT of a table of one million files, measured rather than extrapolated.

Writing a million real data files takes hours here (Spark writes ~200 one-row files a second), and
a checkpoint reads only the log, so the table is a synthetic log: protocol + metadata, then
COMMITS commits of FILES / COMMITS add actions each (paths, sizes, partition values and statistics
like Silt's own, the Parquet files themselves absent). Measured in one JVM (local[2], driver 4g):
the first open of the log (JSON replay), `CHECKPOINT` (REPS times; the snapshot is cached as after
a commit), the fresh open of a copy holding just the checkpoint, the checkpoint's size, and the
driver's heap after the checkpoint. Report only: delta-rs opening the checkpointed copy.
Writes bench/results/checkpoint_million.json.

    python -m bench checkpoint_million [--files 1000000] [--commits 100] [--reps 2]
"""
import argparse
import json
import time
from pathlib import Path

from bench.common import SCRATCH_DIR, folder_stats, link_copy, measure_and_save, rm, say, timed
from bench.log_open import snapshot_file_count

SCRATCH = SCRATCH_DIR / "checkpoint_million"
SCHEMA = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "s", "type": "string", "nullable": True, "metadata": {}},
    {"name": "day", "type": "integer", "nullable": True, "metadata": {}}]}


def write_log(path: Path, files: int, commits: int) -> float:
    """The synthetic log; returns the seconds it took to write."""
    t0 = time.perf_counter()
    log = path / "_delta_log"
    log.mkdir(parents=True)
    now = int(time.time() * 1000)
    head = [{"commitInfo": {"timestamp": now, "operation": "CREATE TABLE"}},
            {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": {"id": "00000000-0000-0000-0000-000000000001", "format": {"provider": "parquet", "options": {}},
                          "schemaString": json.dumps(SCHEMA), "partitionColumns": ["day"],
                          "configuration": {"delta.checkpointInterval": "1000000"}, "createdTime": now}}]
    (log / f"{0:020d}.json").write_text("\n".join(json.dumps(a) for a in head) + "\n")
    per = files // commits
    for c in range(commits):
        lines = [json.dumps({"commitInfo": {"timestamp": now, "operation": "WRITE", "readVersion": c}})]
        for i in range(c * per, (c + 1) * per):
            stats = json.dumps({"numRecords": 100, "minValues": {"id": i * 100, "s": f"s{i}"},
                                "maxValues": {"id": i * 100 + 99, "s": f"s{i}z"}, "nullCount": {"id": 0, "s": 0}})
            lines.append(json.dumps({"add": {"path": f"day={i % 30}/part-{i:08d}-c000.snappy.parquet",
                                             "partitionValues": {"day": str(i % 30)}, "size": 4000 + i % 977,
                                             "modificationTime": now, "dataChange": True, "stats": stats}}))
        (log / f"{c + 1:020d}.json").write_text("\n".join(lines) + "\n")
    return time.perf_counter() - t0


def heap_used_mb(spark):
    """The driver JVM's used heap after a full GC, in MiB."""
    rt = spark._jvm.java.lang.Runtime.getRuntime()
    spark._jvm.java.lang.System.gc()
    return (rt.totalMemory() - rt.freeMemory()) / 2**20


def bench_checkpoint_million(spark, files=1_000_000, commits=100, reps=2):
    """Writes the synthetic log, opens it, checkpoints it and opens the checkpoint; returns the result."""
    table = SCRATCH / "t"
    write_secs = write_log(table, files, commits)
    n_log, b_log = folder_stats(table / "_delta_log")
    say(f"  synthetic log: {files:,} adds in {commits} commits ({b_log / 2**20:.0f} MiB of JSON), written in {write_secs:.0f} s")
    # an open with its file list (a snapshot reads its files when first asked for them)
    open_json, seen = timed(lambda: snapshot_file_count(spark, table))
    say(f"  first open (JSON replay): {open_json:.1f} s, {seen:,} files; heap {heap_used_mb(spark):.0f} MiB")
    secs = []
    for i in range(reps):
        s, _ = timed(lambda: spark.sql(f"CHECKPOINT '{table}'").collect())
        secs.append(s)
        say(f"  CHECKPOINT rep {i}: {s:.1f} s ({seen / s:,.0f} files/s)")
    heap = heap_used_mb(spark)
    cp = sorted((table / "_delta_log").glob("*.checkpoint*.parquet"))
    cp_bytes = sum(p.stat().st_size for p in cp)
    # a copy holding only the checkpoint (and _last_checkpoint): what a new reader opens
    copy = SCRATCH / "copy"
    (copy / "_delta_log").mkdir(parents=True)
    link_copy(table / "_delta_log", copy / "_delta_log")
    for p in (copy / "_delta_log").glob("*.json"):
        p.unlink()
    open_cp, seen2 = timed(lambda: snapshot_file_count(spark, copy))
    assert seen2 == seen
    say(f"  fresh open from the checkpoint: {open_cp:.1f} s")
    from deltalake import DeltaTable
    drs_open, _ = timed(lambda: DeltaTable(str(copy)))
    say(f"  delta-rs open from the checkpoint (report only): {drs_open:.1f} s")
    rm(copy)
    result = {"benchmark": "checkpoint_million", "files": seen, "commits": commits + 1,
              "log_json_bytes": b_log, "log_write_seconds": write_secs,
              "first_open_json_seconds": open_json, "checkpoint_seconds": secs,
              "checkpoint_files_per_second": seen / min(secs), "checkpoint_bytes": cp_bytes,
              "checkpoint_files": [p.name for p in cp], "heap_after_checkpoint_mib": heap,
              "fresh_open_from_checkpoint_seconds": open_cp, "deltars_open_from_checkpoint_seconds": drs_open}
    return result


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    name = "checkpoint_million"
    return [(name, f"CHECKPOINT of {r['files']:,} files (synthetic log), best of {len(r['checkpoint_seconds'])}",
             f"{min(r['checkpoint_seconds']):.1f} s ({r['checkpoint_files_per_second']:,.0f} files/s, "
             f"{r['checkpoint_bytes'] / 2**20:.0f} MiB)"),
            (name, "  first open of the JSON log / fresh open from the checkpoint (delta-rs)",
             f"{r['first_open_json_seconds']:.1f} s / {r['fresh_open_from_checkpoint_seconds']:.1f} s "
             f"({r['deltars_open_from_checkpoint_seconds']:.1f} s)"),
            (name, "  driver heap after the checkpoint", f"{r['heap_after_checkpoint_mib']:.0f} MiB")]


def parser():
    """The checkpoint_million benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench checkpoint_million", description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--reps", type=int, default=2)
    return ap


def main(argv):
    """Runs the checkpoint_million benchmark; writes results/checkpoint_million.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_checkpoint_million(spark, a.files, a.commits, a.reps), SCRATCH)
