"""A progress bar for long commands run from the CLI: the tasks of the running Spark stages.

The engine names its jobs (``OPTIMIZE events ZORDER BY (city, id): bin 3 of 12``); the bar shows
that name and the running stages' finished / total tasks, redrawn in place on a terminal.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Optional, TextIO, Tuple


def stage_progress(spark: Any) -> Optional[Tuple[int, int, str]]:
    """(finished tasks, total tasks, name) over the active stages, or None when none is running."""
    tracker = spark.sparkContext.statusTracker()
    done = total = 0
    name = ""
    for stage_id in tracker.getActiveStageIds():
        info = tracker.getStageInfo(stage_id)
        if info is None:
            continue
        done += info.numCompletedTasks
        total += info.numTasks
        name = name or info.name
    if total == 0:
        return None
    return done, total, _job_description(spark) or name.split(" at ")[0]


def _job_description(spark: Any) -> Optional[str]:
    """The description the engine gave the running job (the JVM's status store knows it)."""
    try:
        stages = spark.sparkContext._jsc.sc().statusStore().activeStages().iterator()
        while stages.hasNext():
            description = stages.next().description()
            if description.isDefined():
                return str(description.get())
    except Exception:  # noqa: BLE001 - a description is a nicety
        return None
    return None


def render(done: int, total: int, name: str, width: int = 30) -> str:
    """One line of the bar: ``[#######.......]  47%  64/136 tasks  name``."""
    filled = int(width * done / total) if total else 0
    return f"[{'#' * filled}{'.' * (width - filled)}] {100 * done // max(total, 1):3d}%  {done}/{total} tasks  {name}"


class ProgressBar:
    """Context manager drawing the bar on `out` while the body runs (only on a terminal)."""

    def __init__(self, spark: Any, out: TextIO = sys.stderr, interval: float = 0.25, force: bool = False):
        self._spark, self._out, self._interval = spark, out, interval
        self._enabled = force or out.isatty()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._drawn = False

    def __enter__(self) -> "ProgressBar":
        if self._enabled:
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._enabled:
            self._stop.set()
            self._thread.join()
            if self._drawn:
                self._out.write("\r\033[K")
                self._out.flush()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                p = stage_progress(self._spark)
            except Exception:  # noqa: BLE001 - the session is going away; the bar just stops
                return
            if p is not None:
                self._out.write("\r\033[K" + render(*p)[:160])
                self._out.flush()
                self._drawn = True
