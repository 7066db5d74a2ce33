"""Crash trials: a writer process is killed with SIGKILL in the middle of one of its writes
(appends, DV DELETE/UPDATE, OPTIMIZE, CHECKPOINT, VACUUM; each kind targeted in turn) and the table
is checked after each kill: it reads, its rows are those of the last committed version (the model
before or after the operation in flight, nothing in between), and the next writer carries on. At
the end VACUUM removes what the killed writers left behind.
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


# The kinds of write a trial aims its kill at, in turn; every kind of the writer's cycle.
KILL_TARGETS = ["append", "delete", "update", "optimize", "checkpoint", "vacuum"]


def _kill_during(proc, step, delay, table=None, trigger="time"):
    """Kills `proc` with SIGKILL while it runs operation `step` (its first): `delay` seconds after
    the operation began (trigger "time"), after the first new data or DV file of `table` appears
    ("write": the kill lands between writing and committing), or as soon as one is deleted
    ("delete": VACUUM at work); a trigger that never fires kills after 15 s. Returns the writer's
    stdout lines and how long the operation took when it ended before the kill."""
    lines, began = [], None
    for line in proc.stdout:
        lines.append(line.split())
        if lines[-1] == ["BEGIN", str(step)]:
            began = time.perf_counter()
            break
    if trigger == "time":
        time.sleep(delay)
    else:
        present = table_files(table)
        fired = (lambda now: bool(now - present)) if trigger == "write" else (lambda now: not now >= present)
        while not fired(table_files(table)) and time.perf_counter() - began < 15:
            time.sleep(0.002)
        time.sleep(delay if trigger == "write" else 0)
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate()
    lines += [line.split() for line in rest.splitlines()]
    ended = ["END", str(step)] in lines
    return lines, (time.perf_counter() - began if ended and began is not None else None)


def _next_step_of(kind, step):
    """The first step of the writer's cycle, from `step` on, that runs an operation of `kind`."""
    while workload.crash_op(step)[0] != kind:
        step += 1
    return step


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


def run_trials(spark, table, trials, seed=7, max_delay=1.0):
    """Runs `trials` kill -9 trials on a fresh table at `table`; returns the report (asserting as it goes)."""
    rng = random.Random(seed)
    for sql in workload.create_sql(table):
        spark.sql(sql).collect()
    model, step = workload.Model(), 0
    in_flight, outcomes, leftovers = Counter(), Counter(), []
    # How long each kind takes in a fresh writer: a timed kill lands uniformly within that time, and
    # an operation that ended before its kill sets the next aim at its kind to its own duration.
    duration = {kind: max_delay for kind in KILL_TARGETS}
    for trial in range(trials):
        target = KILL_TARGETS[trial % len(KILL_TARGETS)]
        step = _next_step_of(target, step)
        # VACUUM is killed while it deletes; the writes alternate between a kill once their first
        # file is written (even rounds: at once in the first, which is CI's, so the write is surely
        # still in flight; up to 0.2 s later after that, into the commit) and one at a random time.
        round_ = trial // len(KILL_TARGETS)
        trigger = "delete" if target == "vacuum" else ("write" if target != "checkpoint" and round_ % 2 == 0 else "time")
        delay = (0.0 if round_ == 0 else rng.uniform(0.0, 0.2)) if trigger == "write" else rng.uniform(0.0, duration[target])
        lines, took = _kill_during(_start_writer(table, step), step, delay, table, trigger)
        if took is not None:
            duration[target] = took
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
