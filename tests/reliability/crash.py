"""Crash trials: a writer process is killed with SIGKILL at a random moment of its write cycle
(appends, DV DELETE/UPDATE, OPTIMIZE, CHECKPOINT, VACUUM) and the table is checked after each kill:
it reads, its rows are those of the last committed version (the model before or after the
operation in flight, nothing in between), and the next writer carries on. At the end VACUUM
removes what the killed writers left behind.
"""
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import workload
from conftest import python_env

WORKER = Path(__file__).resolve().parent / "worker.py"


def _start_writer(table, step):
    return subprocess.Popen([sys.executable, str(WORKER), "crash-writer", str(table), str(step)],
                            env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def _kill_after(proc, begins, delay):
    """Kills `proc` with SIGKILL `delay` seconds after it began its `begins`-th operation (0: after
    READY); returns its stdout lines. Counting operations, not seconds from the start, spreads the
    kills over the cycle although a cold JVM's first operations are slow."""
    lines, seen = [], -1
    for line in proc.stdout:
        lines.append(line.split())
        if lines[-1] == ["READY"] or (lines[-1] and lines[-1][0] == "BEGIN"):
            seen += 1
            if seen >= begins:
                break
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate()
    lines += [line.split() for line in rest.splitlines()]
    return lines


def table_files(table):
    """Data and DV files on disk, relative to the table (hidden and _delta_log left out)."""
    out = set()
    for root, dirs, files in os.walk(table):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        for f in files:
            if f.endswith((".parquet", ".bin")) and not f.startswith((".", "_")):
                out.add(os.path.relpath(os.path.join(root, f), table))
    return out


def referenced_files(spark, table):
    """The data and DV files of the current version, relative to the table."""
    import silt
    import silt.dv
    files = silt.SiltTable.for_path(spark, str(table)).files().select("absolutePath", "deletionVector").collect()
    paths = {r["absolutePath"] for r in files}
    paths |= {silt.dv.file_path(r["deletionVector"].asDict(), str(table)) for r in files
              if r["deletionVector"] is not None and r["deletionVector"]["storageType"] != "i"}
    return {os.path.relpath(local_path(p), table) for p in paths}


def local_path(uri: str) -> str:
    from urllib.parse import unquote, urlparse
    return unquote(urlparse(uri).path) if uri.startswith("file:") else uri


def run_trials(spark, table, trials, seed=7, max_delay=2.5):
    """Runs `trials` kill -9 trials on a fresh table at `table`; returns the report (asserting as it goes)."""
    rng = random.Random(seed)
    for sql in workload.create_sql(table):
        spark.sql(sql).collect()
    model, step = workload.Model(), 0
    in_flight, outcomes, leftovers = Counter(), Counter(), []
    for trial in range(trials):
        lines = _kill_after(_start_writer(table, step), rng.randint(0, 3), rng.uniform(0.0, max_delay))
        ended = [int(x[1]) for x in lines if x and x[0] == "END"]
        begun = [int(x[1]) for x in lines if x and x[0] == "BEGIN"]
        for s in ended:
            model = model.apply(workload.crash_op(s))
        step = (ended[-1] + 1) if ended else step
        pending = begun[-1] if begun and (not ended or begun[-1] > ended[-1]) else None
        kind = workload.crash_op(pending)[0] if pending is not None else "idle"
        in_flight[kind] += 1
        rows = workload.read_rows(spark, table)
        if pending is not None and rows == model.apply(workload.crash_op(pending)).rows() and rows != model.rows():
            model, step, landed = model.apply(workload.crash_op(pending)), pending + 1, True
        else:
            landed = False
            assert rows == model.rows(), f"trial {trial}: after a kill during {kind} (step {pending}) the rows " \
                                         "are neither the version before nor after it"
            if pending is not None and kind in ("optimize", "checkpoint", "vacuum"):
                step = pending + 1  # no change of rows either way; the next writer goes on
        outcomes[f"{kind}: {'committed' if landed else 'rows unchanged'}"] += 1
        leftovers.append(len(table_files(table) - referenced_files(spark, table)))
    # a following write works, and VACUUM removes what the killed writers left behind
    spark.sql(workload.append_sql(table, 9, 0)).collect()
    model = model.apply(("append", 9, 0))
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM silt.`{table}` RETAIN 0 HOURS").collect()
    finally:
        spark.conf.unset("spark.silt.vacuum.retentionDurationCheck.enabled")
    unreferenced = table_files(table) - referenced_files(spark, table)
    assert workload.read_rows(spark, table) == model.rows()
    assert not unreferenced, f"VACUUM left uncommitted files: {sorted(unreferenced)[:5]}"
    return {"trials": trials, "operations_completed": step, "kills_by_operation_in_flight": dict(in_flight),
            "outcomes": dict(outcomes), "max_uncommitted_files_left_by_a_kill": max(leftovers, default=0),
            "trials_leaving_uncommitted_files": sum(1 for x in leftovers if x),
            "uncommitted_files_after_final_vacuum": len(unreferenced), "final_rows": len(model.rows())}
