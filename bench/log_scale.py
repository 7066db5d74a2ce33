"""log_scale: a table of 10 k to 10 M files opened, planned and checkpointed with a 1 GiB driver.

The table is synthetic, as checkpoint_million's, in the shape a long-lived partitioned table has:
FILES add actions over 1,000 partitions (`day`), with statistics on `id` (each file's own range)
and `s`, the Parquet files themselves absent. They are written straight into a classic checkpoint
(by pyarrow, rows in file order, so each row group holds every partition, as another engine's
checkpoint would), then TAIL commits of 100 adds each follow it. Each size is measured in a JVM of
its own with `spark.driver.memory` = DRIVER (1g: PySpark's default):
- the open (protocol and metadata), then CHECKPOINT (the driver holding no file list yet);
- the file list (`numFiles`), and the heap after it;
- the planning of a query on one partition (`day = 3`) and of a point on `id`, each twice:
  seconds until the scan's tasks are made, and the files they read;
- a fresh open (with its file list) of the checkpoint Silt wrote, in another JVM;
- report only: delta-rs opening the same table.
A step that fails (out of heap) is recorded with its error, and the JVM's later steps are skipped.
Writes bench/results/log_scale.json.

    python -m bench log_scale [--sizes 10000,1000000,2000000,10000000] [--driver-memory 1g]
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


def add_action(i, now):
    """The add action of synthetic file `i` (a dict as in a commit)."""
    stats = (f'{{"numRecords":100,"minValues":{{"id":{i * 100},"s":"s{i}"}},'
             f'"maxValues":{{"id":{i * 100 + 99},"s":"s{i}z"}},"nullCount":{{"id":0,"s":0}}}}')
    return {"path": f"day={i % PARTITIONS}/part-{i:09d}-c000.snappy.parquet", "partitionValues": {"day": str(i % PARTITIONS)},
            "size": 4000 + i % 977, "modificationTime": now, "dataChange": False, "stats": stats}


def write_table(path: Path, files: int) -> float:
    """The synthetic table: a checkpoint of `files` adds at version 0, then TAIL commits; returns seconds."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    t0 = time.perf_counter()
    log = path / "_delta_log"
    log.mkdir(parents=True)
    now = int(time.time() * 1000)
    add_type = pa.struct([("path", pa.string()), ("partitionValues", pa.map_(pa.string(), pa.string())),
                          ("size", pa.int64()), ("modificationTime", pa.int64()), ("dataChange", pa.bool_()),
                          ("stats", pa.string())])
    meta_type = pa.struct([("id", pa.string()), ("format", pa.struct([("provider", pa.string()),
                                                                      ("options", pa.map_(pa.string(), pa.string()))])),
                           ("schemaString", pa.string()), ("partitionColumns", pa.list_(pa.string())),
                           ("configuration", pa.map_(pa.string(), pa.string())), ("createdTime", pa.int64())])
    proto_type = pa.struct([("minReaderVersion", pa.int32()), ("minWriterVersion", pa.int32())])
    schema = pa.schema([("protocol", proto_type), ("metaData", meta_type), ("add", add_type)])
    meta = {"id": "00000000-0000-0000-0000-000000000002", "format": {"provider": "parquet", "options": []},
            "schemaString": json.dumps(SCHEMA), "partitionColumns": ["day"],
            "configuration": [("delta.checkpointInterval", "1000000")], "createdTime": now}
    cp = log / f"{0:020d}.checkpoint.parquet"
    with pq.ParquetWriter(cp, schema) as w:
        w.write_table(pa.table({"protocol": [{"minReaderVersion": 1, "minWriterVersion": 2}, None],
                                "metaData": [None, meta], "add": pa.array([None, None], add_type)}, schema=schema))
        for lo in range(0, files, ROWS_PER_BATCH):
            adds = []
            for i in range(lo, min(files, lo + ROWS_PER_BATCH)):
                a = add_action(i, now)
                a["partitionValues"] = list(a["partitionValues"].items())
                adds.append(a)
            w.write_table(pa.table({"protocol": pa.nulls(len(adds), proto_type), "metaData": pa.nulls(len(adds), meta_type),
                                    "add": pa.array(adds, add_type)}, schema=schema))
    (log / "_last_checkpoint").write_text(json.dumps({"version": 0, "size": files + 2}) + "\n")
    for c in range(1, TAIL + 1):
        lines = [{"commitInfo": {"timestamp": now, "operation": "WRITE", "readVersion": c - 1}}]
        lines += [{"add": dict(add_action(files + (c - 1) * 100 + j, now), dataChange=True)} for j in range(100)]
        (log / f"{c:020d}.json").write_text("\n".join(json.dumps(a) for a in lines) + "\n")
    return time.perf_counter() - t0


def heap_used_mb(spark):
    """The driver JVM's used heap after a full GC, in MiB."""
    rt = spark._jvm.java.lang.Runtime.getRuntime()
    spark._jvm.java.lang.System.gc()
    return (rt.totalMemory() - rt.freeMemory()) / 2**20


def planned(spark, path, where):
    """(seconds, files read) of planning `where` on the table: until the scan's tasks are made."""
    t0 = time.perf_counter()
    plan = spark.read.format("silt").load(str(path)).where(where)._jdf.queryExecution().executedPlan()
    leaves = plan.collectLeaves()
    scans = [leaves.apply(i) for i in range(leaves.size()) if leaves.apply(i).getClass().getSimpleName() == "FileSourceScanExec"]
    assert len(scans) == 1, plan.toString()
    scans[0].inputRDD().getNumPartitions()
    secs = time.perf_counter() - t0
    return secs, int(scans[0].metrics().apply("numFiles").value())


def child(path: Path, files: int):
    """The measures of one size, in this process's own JVM; printed as one JSON line."""
    from bench.log_open import table_log
    out, jvm_ok = {}, True

    def step(name, fn):
        nonlocal jvm_ok
        if not jvm_ok:
            return None
        try:
            secs, value = timed(fn)
            out[name] = {"seconds": secs, "value": value}
            say(f"    {name}: {secs:.2f} s {'' if value is None else value}")
            return value
        except Exception as e:  # noqa: BLE001 - an out-of-heap JVM is a result, not a crash of the benchmark
            out[name] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
            say(f"    {name}: FAILED {out[name]['error'][:200]}")
            jvm_ok = "OutOfMemoryError" not in str(e) and "Java heap" not in str(e)
            return None

    spark = build_spark("silt", {"spark.driver.memory": DRIVER_MEMORY})
    try:
        step("open", lambda: int(table_log(spark, path).latest().version()))
        # first, while the driver holds no file list: a Spark job replays the checkpoint and the tail
        step("checkpoint", lambda: spark.sql(f"CHECKPOINT '{path}'").collect() and None)
        step("heap_after_checkpoint_mib", lambda: heap_used_mb(spark))
        n = step("file_list", lambda: int(table_log(spark, path).latest().numFiles()))
        if n is not None:
            assert n == files + TAIL * 100, n
        step("heap_after_file_list_mib", lambda: heap_used_mb(spark))
        point = f"id = {(files // 2) * 100 + 7}"
        for i in (1, 2):
            step(f"plan_partition_{i}", lambda: planned(spark, path, "day = 3")[1])
            step(f"plan_point_{i}", lambda: planned(spark, path, point)[1])
    finally:
        spark.stop()
    print("@@RESULT@@ " + json.dumps(out), flush=True)


def fresh_open_of_own_checkpoint(path: Path, files: int):
    """The fresh open (file list) of a copy of the table holding only Silt's checkpoint, in a JVM of its own."""
    copy = SCRATCH / "copy"
    rm(copy)
    (copy / "_delta_log").mkdir(parents=True)
    for p in (path / "_delta_log").iterdir():
        if ".checkpoint." in p.name and not p.name.startswith(f"{0:020d}") or p.name == "_last_checkpoint":
            (copy / "_delta_log" / p.name).hardlink_to(p)
    return copy


def run_child(path, files, driver_memory):
    r = subprocess.run([sys.executable, "-m", "bench.log_scale", "--child", str(path), str(files), driver_memory],
                       capture_output=True, text=True, cwd=str(Path(__file__).resolve().parent.parent))
    sys.stderr.write("".join(line + "\n" for line in r.stderr.splitlines() if line.startswith("    ")))
    lines = [line for line in r.stdout.splitlines() if line.startswith("@@RESULT@@ ")]
    if not lines:
        return {"error": f"the JVM ended with code {r.returncode}: {r.stderr[-500:]}"}
    return json.loads(lines[-1][len("@@RESULT@@ "):])


def bench_log_scale(sizes, driver_memory):
    """Each size's table written, measured in a JVM of its own, then opened by delta-rs; returns the result."""
    from deltalake import DeltaTable
    rows = []
    for files in sizes:
        rm(SCRATCH)
        table = SCRATCH / "t"
        secs = write_table(table, files)
        say(f"  {files:,} files: table written in {secs:.0f} s; measuring with a {driver_memory} driver")
        silt = run_child(table, files, driver_memory)
        drs, _ = timed(lambda: DeltaTable(str(table)).version())
        say(f"    delta-rs open: {drs:.2f} s")
        own = None
        if "checkpoint" in silt and "error" not in silt["checkpoint"]:
            copy = fresh_open_of_own_checkpoint(table, files)
            own = run_child_open(copy, driver_memory)
        rows.append({"files": files, "table_write_seconds": secs, "silt": silt, "deltars_open_seconds": drs,
                     "fresh_open_of_silt_checkpoint": own})
    rm(SCRATCH)
    return {"benchmark": "log_scale", "driver_memory": driver_memory, "partitions": PARTITIONS, "sizes": rows}


def run_child_open(path, driver_memory):
    r = subprocess.run([sys.executable, "-m", "bench.log_scale", "--child-open", str(path), driver_memory],
                       capture_output=True, text=True, cwd=str(Path(__file__).resolve().parent.parent))
    lines = [line for line in r.stdout.splitlines() if line.startswith("@@RESULT@@ ")]
    out = json.loads(lines[-1][len("@@RESULT@@ "):]) if lines else {"error": r.stderr[-500:]}
    say(f"    fresh open of Silt's checkpoint: {out}")
    return out


def child_open(path: Path):
    from bench.log_open import snapshot_file_count
    spark = build_spark("silt", {"spark.driver.memory": DRIVER_MEMORY})
    try:
        secs, n = timed(lambda: snapshot_file_count(spark, path))
        out = {"seconds": secs, "files": n}
    except Exception as e:  # noqa: BLE001
        out = {"error": f"{type(e).__name__}: {str(e)[:300]}"}
    finally:
        spark.stop()
    print("@@RESULT@@ " + json.dumps(out), flush=True)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    def cell(m, key):
        x = m.get(key)
        if x is None:
            return "-"
        return "FAILED" if "error" in x else f"{x['seconds']:.2f} s" + ("" if x["value"] is None or key.startswith("heap")
                                                                        else f" ({x['value']:,})")
    out = []
    for s in r["sizes"]:
        m = s["silt"]
        out.append(("log_scale", f"{s['files']:,} files, {r['driver_memory']} driver: open / file list / delta-rs open",
                    f"{cell(m, 'open')} / {cell(m, 'file_list')} / {s['deltars_open_seconds']:.2f} s"))
        out.append(("log_scale", "  planning day = 3, then a point on id (second run; files read)",
                    f"{cell(m, 'plan_partition_2')} / {cell(m, 'plan_point_2')}"))
        out.append(("log_scale", "  CHECKPOINT", cell(m, "checkpoint")))
    return out


DRIVER_MEMORY = "1g"


def parser():
    """The log_scale benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench log_scale", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,1000000,2000000,10000000")
    ap.add_argument("--driver-memory", default="1g")
    return ap


def main(argv):
    """Runs the log_scale benchmark; writes results/log_scale.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(lambda: bench_log_scale([int(x) for x in a.sizes.split(",")], a.driver_memory))


if __name__ == "__main__":
    if sys.argv[1] == "--child":
        DRIVER_MEMORY = sys.argv[4]
        child(Path(sys.argv[2]), int(sys.argv[3]))
    elif sys.argv[1] == "--child-open":
        DRIVER_MEMORY = sys.argv[3]
        child_open(Path(sys.argv[2]))
