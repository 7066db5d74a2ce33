"""json_log: a log of JSON commits alone (no checkpoint) of 2 M files, opened, planned and checkpointed with a 1 GiB driver.

The shape of a table written for a long time with checkpoints off, or by an engine that writes
none: COMMITS commits of FILES / COMMITS adds each (log_scale's synthetic files over 1,000
partitions `day`, statistics on `id`, the Parquet files themselves absent). Measured, each in a JVM
of its own with `spark.driver.memory` = DRIVER (1g: PySpark's default):
- Silt on the log as written: the open (protocol and metadata: the commits' other actions read, their
  adds never parsed on the driver); the plans of `day = 3` and of a point on `id`, twice each (the
  first includes the Spark job replaying the commits, which the cache then keeps) and the median of
  five more of the point; DESCRIBE DETAIL's file count; CHECKPOINT; the heap after each;
- Silt on a copy holding only the checkpoint it wrote: the same open and plans (the checkpoint-backed
  path the JSON-only one is compared with);
- the reference Delta Lake (its defaults, the same driver) on a copy of the log as written: the open
  (its snapshot), the same plans (the first builds its cached state), DESCRIBE DETAIL and its
  checkpoint (`DeltaLog.checkpoint()`); `--no-reference` skips it.
A step that fails is recorded with its error. Writes bench/results/json_log.json.

    python -m bench json_log [--files 2000000] [--commits 100] [--driver-memory 1g] [--no-reference]
"""
import argparse
import json
import sys
import time
from pathlib import Path

from bench import log_scale
from bench.common import SCRATCH_DIR, build_spark, measure_and_save, rm, say

SCRATCH = SCRATCH_DIR / "json_log"


def write_log(path: Path, files: int, commits: int) -> float:
    """`commits` JSON commits of `files` adds in all (the first with the protocol and metadata); returns seconds."""
    t0 = time.perf_counter()
    log = path / "_delta_log"
    log.mkdir(parents=True)
    now = int(time.time() * 1000)
    per = files // commits
    for c in range(commits):
        lines = [{"commitInfo": {"timestamp": now, "operation": "WRITE", "readVersion": c - 1}}]
        if c == 0:
            lines += [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
                      {"metaData": {"id": "00000000-0000-0000-0000-000000000003",
                                    "format": {"provider": "parquet", "options": {}},
                                    "schemaString": json.dumps(log_scale.SCHEMA), "partitionColumns": ["day"],
                                    "configuration": {"delta.checkpointInterval": "1000000"}, "createdTime": now}}]
        lines += [{"add": dict(log_scale.add_action(c * per + j, now), dataChange=True)} for j in range(per)]
        (log / f"{c:020d}.json").write_text("\n".join(json.dumps(a) for a in lines) + "\n")
    return time.perf_counter() - t0


def describe_files(spark, path, fmt):
    return int(spark.sql(f"DESCRIBE DETAIL {fmt}.`{path}`").first()["numFiles"])


def silt_measures(path: Path, files: int, checkpoint: bool):
    """Silt's measures of the table, in this process's own JVM: the open, the plans, DESCRIBE DETAIL, then
    (`checkpoint`) CHECKPOINT, each followed by the heap."""
    from bench.log_open import table_log
    _, step = log_scale.stepper()
    spark = build_spark("silt", {"spark.driver.memory": log_scale.DRIVER_MEMORY})
    try:
        step("open", lambda: int(table_log(spark, path).latest().version()))
        log_scale.plans(spark, path, files, False, step)
        step("describe_detail", lambda: describe_files(spark, path, "silt"))
        if checkpoint:
            step("checkpoint", lambda: (spark.sql(f"CHECKPOINT '{path}'").collect(), None)[1])
            step("heap_after_checkpoint_mib", lambda: log_scale.heap_used_mb(spark))
    finally:
        spark.stop()


def reference_measures(path: Path, files: int):
    """The reference Delta Lake's measures (its default settings), in this process's own JVM."""
    _, step = log_scale.stepper()
    spark = build_spark("delta", {"spark.driver.memory": log_scale.DRIVER_MEMORY})
    try:
        step("open", lambda: len(spark.read.format("delta").load(str(path)).schema))
        log_scale.plans(spark, path, files, False, step, fmt="delta")
        step("describe_detail", lambda: describe_files(spark, path, "delta"))
        delta_log = spark._jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, str(path))
        step("checkpoint", lambda: (delta_log.checkpoint(), None)[1])
        step("heap_after_checkpoint_mib", lambda: log_scale.heap_used_mb(spark))
    finally:
        spark.stop()


def bench_json_log(files, commits, driver_memory, with_reference=True):
    """The log written; the reference's measures of a copy; Silt's of the log, then of its own checkpoint."""
    rm(SCRATCH)
    table = SCRATCH / "t"
    secs = write_log(table, files, commits)
    say(f"  {files:,} files in {commits} JSON commits: written in {secs:.0f} s; with a {driver_memory} driver:")
    reference = None

    def child(path, mode):
        return log_scale.run_child(path, files, driver_memory, mode, module="bench.json_log")
    if with_reference:
        say("    the reference Delta Lake, on a copy of the log:")
        reference = child(log_scale.log_copy(table, SCRATCH / "reference"), "reference")
        rm(SCRATCH / "reference")
    say("    Silt, on the log as written:")
    json_only = child(table, "json")
    checkpointed = None
    if "error" not in json_only.get("checkpoint", {"error": ""}):
        say("    Silt, on a copy holding only the checkpoint it wrote:")
        copy = log_scale.log_copy(table, SCRATCH / "copy", lambda name: name.startswith(f"{commits - 1:020d}.")
                                  or name == "_last_checkpoint")
        checkpointed = child(copy, "checkpointed")
    rm(SCRATCH)
    return {"benchmark": "json_log", "driver_memory": driver_memory, "files": files, "commits": commits,
            "partitions": log_scale.PARTITIONS, "log_write_seconds": secs, "json_only": json_only,
            "checkpointed": checkpointed, "reference": reference}


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    def cell(m, key):
        x = (m or {}).get(key)
        if x is None:
            return "-"
        return "FAILED" if "error" in x else f"{x['seconds']:.2f} s"
    rows = []
    for name, m in (("JSON commits", r["json_only"]), ("its checkpoint", r["checkpointed"]), ("reference", r["reference"])):
        rows.append(("json_log", f"{name}: open / first plan / day = 3 / point / CHECKPOINT",
                     f"{cell(m, 'open')} / {cell(m, 'plan_partition_1')} / {cell(m, 'plan_partition_2')} / "
                     f"{cell(m, 'plan_point_2')} / {cell(m, 'checkpoint')}"))
    return rows


def parser():
    """The json_log benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench json_log", description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2_000_000)
    ap.add_argument("--commits", type=int, default=100)
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--no-reference", action="store_true", help="skip the reference Delta Lake's measures")
    return ap


def main(argv):
    """Runs the json_log benchmark; writes results/json_log.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(lambda: bench_json_log(a.files, a.commits, a.driver_memory, with_reference=not a.no_reference))


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        log_scale.DRIVER_MEMORY = sys.argv[4]
        path, files, mode = Path(sys.argv[2]), int(sys.argv[3]), sys.argv[5]
        if mode == "reference":
            reference_measures(path, files)
        else:
            silt_measures(path, files, checkpoint=mode == "json")
    else:
        main(sys.argv[1:])
