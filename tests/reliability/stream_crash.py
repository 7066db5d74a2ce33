"""Exactly-once trials of the streaming sink: a query streaming one Silt table into another is
killed with SIGKILL in the middle of a micro-batch, at the commit hook's kill points (its data files
written but not committed; committed to the target but not marked done in the checkpoint), and
restarted from its checkpoint each time; at the end every source row is in the target exactly once.
"""
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import python_env

WORKER = Path(__file__).resolve().parent / "worker.py"
ROWS_PER_COMMIT = 20
COMMITS = 6
FILES_PER_BATCH = 3
# Where each killed run stops: 1 before its first commit to the target, 2 just after it.
KILL_POINTS = [1, 2, 2]


def start_query(spark, folder):
    """The query under test (run in the worker): the source in batches of a few files, into the target."""
    return (spark.readStream.format("silt").option("maxFilesPerTrigger", FILES_PER_BATCH)
            .load(os.path.join(folder, "source")).writeStream.format("silt")
            .option("checkpointLocation", os.path.join(folder, "checkpoint")).trigger(availableNow=True)
            .start(os.path.join(folder, "target")))


def write_source(spark, folder):
    source = os.path.join(folder, "source")
    for c in range(COMMITS):
        spark.range(c * ROWS_PER_COMMIT, (c + 1) * ROWS_PER_COMMIT, numPartitions=2) \
            .write.format("silt").mode("append").save(source)
    return COMMITS * ROWS_PER_COMMIT


def _run(folder, pause):
    proc = subprocess.Popen([sys.executable, str(WORKER), "stream-writer", str(folder), str(pause)],
                            env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = []
    for line in proc.stdout:
        lines.append(line.strip())
        if pause and line.strip() == "PAUSED":
            proc.send_signal(signal.SIGKILL)
            break
    proc.communicate(timeout=300)
    return lines


def target_commits(folder):
    log = Path(folder) / "target" / "_delta_log"
    return sorted(log.glob("*.json")) if log.exists() else []


def run_trials(spark, folder, kill_points=KILL_POINTS):
    """Kills the query at each of `kill_points` in turn, then lets it finish; returns the report."""
    folder = str(folder)
    expected = write_source(spark, folder)
    kills = []
    for point in kill_points:
        before = len(target_commits(folder))
        lines = _run(folder, point)
        assert "PAUSED" in lines, f"the query ended before its kill point: {lines}"
        kills.append({"kill_point": "before commit" if point == 1 else "after commit",
                      "target_commits_added": len(target_commits(folder)) - before})
    assert "DONE" in _run(folder, 0)
    ids = [r.id for r in spark.read.format("silt").load(os.path.join(folder, "target")).collect()]
    return {"source_rows": expected, "target_rows": len(ids), "distinct": len(set(ids)),
            "missing": expected - len(set(ids)), "duplicated": len(ids) - len(set(ids)), "kills": kills}
