"""log_scale: a table of 10 k to 10 M files opened, planned and checkpointed with a 1 GiB driver.

The table is synthetic, as checkpoint_million's, in the shape a long-lived partitioned table has:
FILES add actions over 1,000 partitions (`day`), with statistics on `id` (each file's own range)
and `s`, the Parquet files themselves absent. They are written straight into a classic checkpoint
(by pyarrow, rows in file order, so each row group holds every partition, as another engine's
checkpoint would; with `stats_parsed` on `id`, as Delta writes by default), then TAIL commits of
100 adds each follow it. Each table is measured in two
JVMs of their own with `spark.driver.memory` = DRIVER (1g: PySpark's default), so that the table
is always opened afresh:
- the table as written: the open (protocol and metadata); CHECKPOINT, while the driver holds no
  file list (a Spark job replays the checkpoint and the tail); the planning of a query on one
  partition (`day = 3`) and of a point on `id`, each twice: seconds until the scan's tasks are
  made, and the files they read; the median of five more plans of the point; the heap after each;
- a copy holding only the checkpoint Silt wrote: the open, the same plans; then, still without the
  file list, an INSERT of one row, a DELETE of one partition (whole files), DESCRIBE DETAIL and a
  VACUUM DRY RUN (no data files exist: its listing is short, its replay of the log is not); then the file list (`numFiles` of the replay on
  the driver, which may not fit it) and the heap after it;
- report only: delta-rs opening the table;
- the reference Delta Lake (its defaults, the same driver), on a copy of the table as written: the open
  (the table's schema: its snapshot), the same plans (the first builds its state, a cached Spark
  dataset), its checkpoint (`DeltaLog.checkpoint()`), then the same writes; killed after
  CHILD_TIMEOUT (`--no-reference` skips it);
- the clustered shape (`--shape clustered`, also run by default): the same files without
  partitions, in a table clustered by `id` (liquid clustering's domain), their rows in the foreign
  checkpoint in a hashed order (as a checkpoint written by Spark's shuffle has them): CHECKPOINT,
  then a point on `id` planned on Silt's checkpoint, which lists the files by their lower bound.
A step that fails (out of heap) is recorded with its error, and the JVM's later steps are skipped.
Writes bench/results/log_scale.json.

    python -m bench log_scale [--sizes 10000,1000000,10000000] [--driver-memory 1g] [--shape partitioned|clustered|both]
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from bench.common import SCRATCH_DIR, build_spark, measure_and_save, rm, say, timed

SCRATCH = SCRATCH_DIR / "log_scale"
PARTITIONS = 1000
TAIL = 5
ROWS_PER_BATCH = 500_000
SCHEMA = {"type": "struct", "fields": [
    {"name": "id", "type": "long", "nullable": True, "metadata": {}},
    {"name": "s", "type": "string", "nullable": True, "metadata": {}},
    {"name": "day", "type": "integer", "nullable": True, "metadata": {}}]}


def add_action(i, now, clustered=False):
    """The add action of synthetic file `i` (a dict as in a commit); `clustered`: of the unpartitioned table."""
    stats = (f'{{"numRecords":100,"minValues":{{"id":{i * 100},"s":"s{i}"}},'
             f'"maxValues":{{"id":{i * 100 + 99},"s":"s{i}z"}},"nullCount":{{"id":0,"s":0}}}}')
    if clustered:
        return {"path": f"part-{i:09d}-c000.snappy.parquet", "partitionValues": {}, "size": 4000 + i % 977,
                "modificationTime": now, "dataChange": False, "stats": stats}
    return {"path": f"day={i % PARTITIONS}/part-{i:09d}-c000.snappy.parquet", "partitionValues": {"day": str(i % PARTITIONS)},
            "size": 4000 + i % 977, "modificationTime": now, "dataChange": False, "stats": stats}


def stats_parsed(i):
    """The typed statistics of synthetic file `i` on `id`, as a checkpoint's `add.stats_parsed`."""
    return {"numRecords": 100, "minValues": {"id": i * 100}, "maxValues": {"id": i * 100 + 99}}


def write_table(path: Path, files: int, clustered: bool = False) -> float:
    """The synthetic table: a checkpoint of `files` adds at version 0, then TAIL commits; returns seconds.
    `clustered`: unpartitioned, clustered by `id`, the checkpoint's rows in a hashed order."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    t0 = time.perf_counter()
    log = path / "_delta_log"
    log.mkdir(parents=True)
    now = int(time.time() * 1000)
    add_type = pa.struct([("path", pa.string()), ("partitionValues", pa.map_(pa.string(), pa.string())),
                          ("size", pa.int64()), ("modificationTime", pa.int64()), ("dataChange", pa.bool_()),
                          ("stats", pa.string()),
                          ("stats_parsed", pa.struct([("numRecords", pa.int64()),
                                                      ("minValues", pa.struct([("id", pa.int64())])),
                                                      ("maxValues", pa.struct([("id", pa.int64())]))]))])
    meta_type = pa.struct([("id", pa.string()), ("format", pa.struct([("provider", pa.string()),
                                                                      ("options", pa.map_(pa.string(), pa.string()))])),
                           ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
                           ("configuration", pa.map_(pa.string(), pa.string())), ("createdTime", pa.int64())])
    proto_type = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32()),
                            ("writerFeatures", pa.list_(pa.string()))])
    domain_type = pa.struct([("domain", pa.string()), ("configuration", pa.string()), ("removed", pa.bool_())])
    schema = pa.schema([("protocol", proto_type), ("metaData", meta_type), ("domainMetadata", domain_type), ("add", add_type)])
    meta = {"id": "00000000-0000-0000-0000-000000000002", "format": {"provider": "parquet", "options": []},
            "schemaString": json.dumps(SCHEMA), "partitionColumns": [] if clustered else ["day"],
            "configuration": [("delta.checkpointInterval", "1000000")], "createdTime": now}
    protocol = ({"minReaderVersion": 1, "minWriterVersion": 7, "writerFeatures": ["domainMetadata", "clustering"]}
                if clustered else {"minReaderVersion": 1, "minWriterVersion": 2, "writerFeatures": None})
    domain = {"domain": "delta.clustering", "configuration": json.dumps({"clusteringColumns": [["id"]]}), "removed": False}
    head = [("protocol", protocol), ("metaData", meta)] + ([("domainMetadata", domain)] if clustered else [])
    cp = log / f"{0:020d}.checkpoint.parquet"
    order = None
    if clustered:  # a hashed order: file i at row (i * a large odd number) mod files
        order = sorted(range(files), key=lambda i: (i * 2654435761) % files)
    with pq.ParquetWriter(cp, schema) as w:
        w.write_table(pa.table({name: [value if k == name else None for k, value in head]
                                for name in ("protocol", "metaData", "domainMetadata")} |
                               {"add": pa.array([None] * len(head), add_type)}, schema=schema))
        for lo in range(0, files, ROWS_PER_BATCH):
            adds = []
            for j in range(lo, min(files, lo + ROWS_PER_BATCH)):
                i = order[j] if order else j
                a = add_action(i, now, clustered)
                a["partitionValues"] = list(a["partitionValues"].items())
                a["stats_parsed"] = stats_parsed(i)
                adds.append(a)
            w.write_table(pa.table({"protocol": pa.nulls(len(adds), proto_type), "metaData": pa.nulls(len(adds), meta_type),
                                    "domainMetadata": pa.nulls(len(adds), domain_type),
                                    "add": pa.array(adds, add_type)}, schema=schema))
    (log / "_last_checkpoint").write_text(json.dumps({"version": 0, "size": files + 2}) + "\n")
    for c in range(1, TAIL + 1):
        lines = [{"commitInfo": {"timestamp": now, "operation": "WRITE", "readVersion": c - 1}}]
        lines += [{"add": dict(add_action(files + (c - 1) * 100 + j, now, clustered), dataChange=True)} for j in range(100)]
        (log / f"{c:020d}.json").write_text("\n".join(json.dumps(a) for a in lines) + "\n")
    return time.perf_counter() - t0


def heap_used_mb(spark):
    """The driver JVM's used heap after a full GC, in MiB."""
    rt = spark._jvm.java.lang.Runtime.getRuntime()
    spark._jvm.java.lang.System.gc()
    return (rt.totalMemory() - rt.freeMemory()) / 2**20


def planned(spark, path, where, fmt="silt"):
    """(seconds, files read) of planning `where` on the table: until the scan's tasks are made."""
    t0 = time.perf_counter()
    plan = spark.read.format(fmt).load(str(path)).where(where)._jdf.queryExecution().executedPlan()
    leaves = plan.collectLeaves()
    scans = [leaves.apply(i) for i in range(leaves.size()) if leaves.apply(i).getClass().getSimpleName() == "FileSourceScanExec"]
    assert len(scans) == 1, plan.toString()
    scans[0].inputRDD().getNumPartitions()
    secs = time.perf_counter() - t0
    return secs, int(scans[0].metrics().apply("numFiles").value())


def stepper():
    """(out, step): `step(name, fn)` times fn() into out[name] and prints it as a line the parent reads
    (so that a JVM killed at its timeout keeps the steps before); once the heap ran out, later steps are skipped."""
    out, jvm_ok = {}, [True]

    def step(name, fn):
        if not jvm_ok[0]:
            return None
        try:
            secs, value = timed(fn)
            out[name] = {"seconds": secs, "value": value}
        except Exception as e:  # noqa: BLE001 - an out-of-heap JVM is a result, not a crash of the benchmark
            out[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            jvm_ok[0] = not any(m in str(e) for m in ("OutOfMemoryError", "Java heap", "SparkContext was shut down"))
        print(STEP_MARKER + json.dumps({name: out[name]}), flush=True)
        return out[name].get("value")
    return out, step


def plans(spark, path, files, clustered, step, fmt="silt"):
    """The plans of `day = 3` (partitioned) and of a point on `id`, twice each, then the median of five more
    plans of the point (planning once the JVM has run it: the second plan still pays for compiling the
    reader's code, which varies from run to run), and the heap after them."""
    point = f"id = {(files // 2) * 100 + 7}"
    for i in (1, 2):
        if not clustered:
            step(f"plan_partition_{i}", lambda: planned(spark, path, "day = 3", fmt)[1])
        step(f"plan_point_{i}", lambda: planned(spark, path, point, fmt)[1])
    step("plan_point_median_s", lambda: sorted(planned(spark, path, point, fmt)[0] for _ in range(5))[2])
    step("heap_after_plans_mib", lambda: heap_used_mb(spark))


def measures(path: Path, files: int, checkpoint: bool, clustered: bool = False):
    """The measures of one table by Silt, in this process's own JVM. With `checkpoint`: the open, CHECKPOINT,
    then the plans; without: the open, the plans, then (partitioned) writes and the file list."""
    from bench.log_open import table_log
    out, step = stepper()
    spark = build_spark("silt", {"spark.driver.memory": DRIVER_MEMORY})
    try:
        step("open", lambda: int(table_log(spark, path).latest().version()))
        if checkpoint:  # while the driver holds no file list: a Spark job replays the checkpoint and the tail
            step("checkpoint", lambda: (spark.sql(f"CHECKPOINT '{path}'").collect(), None)[1])
            step("heap_after_checkpoint_mib", lambda: heap_used_mb(spark))
        plans(spark, path, files, clustered, step)
        if not checkpoint and clustered:
            step("file_list_loaded", lambda: bool(table_log(spark, path).latest().isStateLoaded()))
        elif not checkpoint:
            spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
            writes(spark, path, "silt", step)
            step("file_list_loaded", lambda: bool(table_log(spark, path).latest().isStateLoaded()))
            step("file_list", lambda: int(table_log(spark, path).latest().files().size()))
            step("heap_after_file_list_mib", lambda: heap_used_mb(spark))
    finally:
        spark.stop()


def writes(spark, path, fmt, step):
    """An INSERT of one row, a DELETE of one partition (whole files: no data file is read, and none
    exists), DESCRIBE DETAIL and a VACUUM DRY RUN (its listing is short, its replay of the log is
    not), and the heap after them."""
    step("insert", lambda: (spark.sql(f"INSERT INTO {fmt}.`{path}` VALUES (-1, 'x', 3)").collect(), None)[1])
    step("delete_partition", lambda: int(spark.sql(f"DELETE FROM {fmt}.`{path}` WHERE day = 4").first()[0]))
    step("describe_detail", lambda: int(spark.sql(f"DESCRIBE DETAIL '{path}'").first()["numFiles"]))
    step("vacuum_dry_run", lambda: len(spark.sql(f"VACUUM '{path}' RETAIN 0 HOURS DRY RUN").collect()))
    step("heap_after_writes_mib", lambda: heap_used_mb(spark))


def reference_measures(path: Path, files: int, clustered: bool):
    """The same table by the reference Delta Lake (its default settings), in this process's own JVM: the
    open (the table's schema, which makes its snapshot), the plans (the first builds its state), its
    checkpoint, then (partitioned) the same writes."""
    out, step = stepper()
    spark = build_spark("delta", {"spark.driver.memory": DRIVER_MEMORY,
                                  "spark.databricks.delta.retentionDurationCheck.enabled": "false"})
    try:
        step("open", lambda: len(spark.read.format("delta").load(str(path)).schema))
        plans(spark, path, files, clustered, step, fmt="delta")
        delta_log = spark._jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, str(path))
        step("checkpoint", lambda: (delta_log.checkpoint(), None)[1])
        step("heap_after_checkpoint_mib", lambda: heap_used_mb(spark))
        if not clustered:
            writes(spark, path, "delta", step)
    finally:
        spark.stop()


def own_checkpoint_copy(path: Path):
    """A copy of the table holding only the checkpoint Silt wrote, `_last_checkpoint` and the commit of
    the checkpoint's version (by which a reader sees that its cached snapshot is still the latest)."""
    return log_copy(path, SCRATCH / "copy", lambda name: (".checkpoint." in name and not name.startswith(f"{0:020d}"))
                    or name in ("_last_checkpoint", f"{TAIL:020d}.json"))


def run_child(path, files, driver_memory, mode, clustered=False, module="bench.log_scale"):
    """The measures of the table at `path` in a new Python process and JVM: `mode` "checkpoint" or "read"
    (Silt's `measures`) or "reference" (or a mode of another benchmark `module` that reports its steps as
    `stepper` prints them); a JVM still running after CHILD_TIMEOUT seconds is killed."""
    cmd = [sys.executable, "-m", module, "--child", str(path), str(files), driver_memory, mode,
           "clustered" if clustered else "partitioned"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(Path(__file__).resolve().parent.parent),
                           timeout=CHILD_TIMEOUT)
        heap = " (out of heap)" if "OutOfMemoryError" in r.stderr else ""
        stdout, ended = r.stdout, None if r.returncode == 0 else \
            f"the JVM ended with code {r.returncode}{heap}: {r.stderr[-500:]}"
    except subprocess.TimeoutExpired as e:
        stdout, ended = (e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or ""), \
            f"killed after {CHILD_TIMEOUT} s"
    out = {}
    for line in stdout.splitlines():
        if line.startswith(STEP_MARKER):
            out.update(json.loads(line[len(STEP_MARKER):]))
    if ended:
        out["ended"] = {"error": ended}
    for k, v in out.items():
        say(f"    {k}: " + (f"FAILED {v['error'][:150]}" if isinstance(v, dict) and "error" in v else
                             f"{v['seconds']:.2f} s ({v['value']})" if isinstance(v, dict) else str(v)))
    return out


def log_copy(path: Path, copy: Path, keep=lambda name: True) -> Path:
    """A copy of the table's log files whose names `keep` keeps (hard links: writers add or replace
    files, never change them)."""
    rm(copy)
    (copy / "_delta_log").mkdir(parents=True)
    for p in (path / "_delta_log").iterdir():
        if keep(p.name):
            (copy / "_delta_log" / p.name).hardlink_to(p)
    return copy


def bench_log_scale(sizes, driver_memory, shapes=("partitioned", "clustered"), with_reference=True):
    """Each size's table written; the reference Delta Lake's measures of a copy; the table checkpointed and
    planned on by Silt, then its Silt checkpoint opened and planned on, each in a JVM of its own, and the
    table opened by delta-rs; for each shape; returns the result."""
    from deltalake import DeltaTable
    rows = []
    for shape in shapes:
        clustered = shape == "clustered"
        for files in sizes:
            rm(SCRATCH)
            table = SCRATCH / "t"
            secs = write_table(table, files, clustered)
            say(f"  {shape}, {files:,} files: table written in {secs:.0f} s; with a {driver_memory} driver, "
                "its foreign checkpoint:")
            reference = None
            if with_reference:
                say("    the reference Delta Lake, on a copy of the table as written:")
                reference = run_child(log_copy(table, SCRATCH / "reference"), files, driver_memory, "reference", clustered)
                rm(SCRATCH / "reference")
            foreign = run_child(table, files, driver_memory, "checkpoint", clustered=clustered)
            drs = None
            if not clustered:
                drs, _ = timed(lambda: DeltaTable(str(table)).version())
                say(f"    delta-rs open: {drs:.2f} s")
            own = None
            if "error" not in foreign.get("checkpoint", {"error": ""}):
                say("   the checkpoint Silt wrote, opened afresh:")
                own = run_child(own_checkpoint_copy(table), files, driver_memory, "read", clustered=clustered)
            rows.append({"shape": shape, "files": files, "table_write_seconds": secs, "foreign_checkpoint": foreign,
                         "deltars_open_seconds": drs, "silt_checkpoint": own, "reference": reference})
    rm(SCRATCH)
    return {"benchmark": "log_scale", "driver_memory": driver_memory, "partitions": PARTITIONS, "sizes": rows}


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    def cell(m, key):
        x = (m or {}).get(key)
        if x is None:
            return "-"
        if "error" in x:
            return "FAILED"
        return f"{x['seconds']:.2f} s" + ("" if x["value"] is None or key.startswith("heap") else f" ({x['value']:,})")

    def heap(m, key):
        x = (m or {}).get(key)
        return "-" if x is None or "error" in x else f"{x['value']:.0f} MiB"
    def median(m):
        x = (m or {}).get("plan_point_median_s")
        return "-" if x is None or "error" in x else f"{x['value']:.2f} s"
    out = []
    for s in r["sizes"]:
        f, own, ref = s["foreign_checkpoint"], s["silt_checkpoint"], s.get("reference")
        if s.get("shape") == "clustered":
            out.append(("log_scale", f"clustered by id, {s['files']:,} files: CHECKPOINT / plan a point on id, "
                        "foreign checkpoint / Silt's (files), second plan [median of 5 more]",
                        f"{cell(f, 'checkpoint')} / {cell(f, 'plan_point_2')} [{median(f)}] / "
                        f"{cell(own, 'plan_point_2')} [{median(own)}]"))
            if ref:
                out.append(("log_scale", "  the reference: plan a point on id [median of 5 more] / its checkpoint",
                            f"{cell(ref, 'plan_point_2')} [{median(ref)}] / {cell(ref, 'checkpoint')}"))
            continue
        out.append(("log_scale", f"{s['files']:,} files, {r['driver_memory']} driver: CHECKPOINT (heap after)",
                    f"{cell(f, 'checkpoint')} ({heap(f, 'heap_after_checkpoint_mib')})"))
        out.append(("log_scale", "  plan day = 3 / a point on id, foreign checkpoint (files)",
                    f"{cell(f, 'plan_partition_2')} / {cell(f, 'plan_point_2')}"))
        out.append(("log_scale", "  plan day = 3 / a point on id, Silt's checkpoint (files) [point: median of 5 more]",
                    f"{cell(own, 'plan_partition_2')} / {cell(own, 'plan_point_2')} [{median(own)}]"))
        out.append(("log_scale", "  Silt's checkpoint: INSERT / DELETE a partition / DESCRIBE DETAIL / VACUUM DRY RUN (heap after)",
                    f"{cell(own, 'insert')} / {cell(own, 'delete_partition')} / {cell(own, 'describe_detail')} / "
                    f"{cell(own, 'vacuum_dry_run')} "
                    f"({heap(own, 'heap_after_writes_mib')})"))
        out.append(("log_scale", "  open / file list of Silt's checkpoint (heap) / delta-rs open",
                    f"{cell(own, 'open')} / {cell(own, 'file_list')} ({heap(own, 'heap_after_file_list_mib')}) / "
                    f"{s['deltars_open_seconds']:.2f} s"))
        if ref:
            out.append(("log_scale", "  the reference: open / plan day = 3 / a point on id [median] / its checkpoint",
                        f"{cell(ref, 'open')} / {cell(ref, 'plan_partition_2')} / {cell(ref, 'plan_point_2')} "
                        f"[{median(ref)}] / {cell(ref, 'checkpoint')}"))
            out.append(("log_scale", "  the reference: INSERT / DELETE a partition / DESCRIBE DETAIL / VACUUM DRY RUN (heap after)",
                        f"{cell(ref, 'insert')} / {cell(ref, 'delete_partition')} / {cell(ref, 'describe_detail')} / "
                        f"{cell(ref, 'vacuum_dry_run')} "
                        f"({heap(ref, 'heap_after_writes_mib')})"))
    return out


DRIVER_MEMORY = "1g"
STEP_MARKER = "@@STEP@@ "
# A JVM that thrashes its heap without running out of it is killed after this long (its steps so far kept).
CHILD_TIMEOUT = 1200


def parser():
    """The log_scale benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench log_scale", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,1000000,10000000")
    ap.add_argument("--driver-memory", default="1g")
    ap.add_argument("--shape", default="both", choices=["partitioned", "clustered", "both"])
    ap.add_argument("--no-reference", action="store_true", help="skip the reference Delta Lake's measures")
    return ap


def main(argv):
    """Runs the log_scale benchmark; writes results/log_scale.json and returns the result."""
    a = parser().parse_args(argv)
    shapes = ("partitioned", "clustered") if a.shape == "both" else (a.shape,)
    return measure_and_save(lambda: bench_log_scale([int(x) for x in a.sizes.split(",")], a.driver_memory, shapes,
                                                    with_reference=not a.no_reference))


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        DRIVER_MEMORY = sys.argv[4]
        if sys.argv[5] == "reference":
            reference_measures(Path(sys.argv[2]), int(sys.argv[3]), clustered=sys.argv[6] == "clustered")
        else:
            measures(Path(sys.argv[2]), int(sys.argv[3]), checkpoint=sys.argv[5] == "checkpoint",
                     clustered=sys.argv[6] == "clustered")
