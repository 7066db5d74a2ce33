"""How busy the machine is around a timed benchmark run: waits for quiet, then records what
other processes used during the run, the JVM's CPU and Spark's per-stage task CPU."""
import os
import statistics
import time
from pathlib import Path

from bench.common import say

# Other processes used more than this share of the CPUs during a timed run: its seconds are not
# comparable (the one threshold of every benchmark).
LOAD_WARNING = 0.10
QUIET_WAIT = 15      # seconds a timed run waits at most for the rest of the machine to go quiet
QUIET_BUDGET = [40.0]  # seconds all the waits of one process may take together


def _proc_cpu(pid):
    """CPU seconds (user + system) used so far by one process."""
    try:
        st = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    f = st[st.rindex(")") + 2:].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def _system_busy():
    """Busy CPU seconds of the whole machine so far (all but idle and iowait)."""
    try:
        f = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except OSError:
        return 0.0
    return (sum(f[:8]) - f[3] - f[4]) / os.sysconf("SC_CLK_TCK")


class Accounting:
    """Measures one timed run: its wall time, the CPU its JVM used, the CPU the rest of the
    machine used meanwhile (other processes: a busy machine makes the seconds meaningless), and
    the Spark stages it ran (from the JVM's status store; best effort, internal API)."""

    def __init__(self, spark):
        self.spark = spark
        self.jvm_pid = getattr(getattr(spark.sparkContext._gateway, "proc", None), "pid", None)

    def _stages(self):
        """The finished stages in the JVM's status store, by (stage, attempt)."""
        try:
            jvm, gw = self.spark._jvm, self.spark.sparkContext._gateway
            lst = self.spark._jsc.sc().statusStore().stageList(
                None, False, False, gw.new_array(jvm.double, 0), jvm.java.util.ArrayList())
            out = {}
            for i in range(lst.size()):
                st = lst.apply(i)
                sub, comp = st.submissionTime(), st.completionTime()
                if st.numTasks() == 0 or not comp.isDefined():
                    continue
                out[(st.stageId(), st.attemptId())] = {
                    "stage": st.stageId(), "name": st.name()[:48], "tasks": st.numTasks(),
                    "wall_s": round((comp.get().getTime() - sub.get().getTime()) / 1000, 2),
                    "task_run_s": round(st.executorRunTime() / 1000, 2),
                    "task_cpu_s": round(st.executorCpuTime() / 1e9, 2),
                    "gc_s": round(st.jvmGcTime() / 1000, 2),
                    "shuffle_write_mb": round(st.shuffleWriteBytes() / 2**20, 1)}
            return out
        except Exception:  # noqa: BLE001 - diagnostics only
            return None

    def run(self, fn):
        """(seconds, fn's result, accounting) of one timed run of fn, after waiting for quiet."""
        waited = wait_for_quiet([p for p in (self.jvm_pid, os.getpid()) if p])
        before = self._stages()
        b_sys, b_jvm, b_self, t0 = _system_busy(), _proc_cpu(self.jvm_pid), _proc_cpu(os.getpid()), time.perf_counter()
        out = fn()
        wall = time.perf_counter() - t0
        sys_cpu, jvm_cpu = _system_busy() - b_sys, _proc_cpu(self.jvm_pid) - b_jvm
        other = max(0.0, sys_cpu - jvm_cpu - (_proc_cpu(os.getpid()) - b_self))
        after = self._stages()
        stages = None if before is None or after is None else [v for k, v in sorted(after.items()) if k not in before]
        acct = {"seconds": wall, "jvm_cpu_s": round(jvm_cpu, 1), "waited_for_quiet_s": round(waited, 1),
                "task_cpu_s": None if stages is None else round(sum(x["task_cpu_s"] for x in stages), 1),
                "other_load": round(other / (wall * (os.cpu_count() or 1)), 3), "stages": stages}
        return wall, out, acct


def wait_for_quiet(own_pids, max_wait=QUIET_WAIT, sample=1.0):
    """Waits (at most max_wait seconds, and within the process' QUIET_BUDGET) until processes other
    than ours use under LOAD_WARNING of the CPUs over one sample; returns the seconds waited. The
    machine may be shared (builds, tests): this keeps their load out of the timed runs when it can."""
    max_wait = min(max_wait, QUIET_BUDGET[0])
    t0 = time.perf_counter()
    while True:
        b_sys, b_own = _system_busy(), sum(_proc_cpu(p) for p in own_pids)
        time.sleep(sample)
        other = max(0.0, _system_busy() - b_sys - (sum(_proc_cpu(p) for p in own_pids) - b_own))
        waited = time.perf_counter() - t0
        if other / (sample * (os.cpu_count() or 1)) < LOAD_WARNING or waited >= max_wait:
            QUIET_BUDGET[0] = max(0.0, QUIET_BUDGET[0] - waited)
            if waited > 2 * sample:
                say(f"  (waited {waited:.0f} s for other processes to leave the CPUs)")
            return waited


def in_process_run(fn):
    """(seconds, fn's result, other_load) of a timed run of fn in this process alone (no JVM):
    for work done in Python, such as delta-rs."""
    wait_for_quiet([os.getpid()])
    b_sys, b_self, t0 = _system_busy(), _proc_cpu(os.getpid()), time.perf_counter()
    out = fn()
    secs = time.perf_counter() - t0
    other = max(0.0, _system_busy() - b_sys - (_proc_cpu(os.getpid()) - b_self)) / (secs * (os.cpu_count() or 1))
    return secs, out, round(other, 3)


def busy_runs(labelled):
    """[(label, run accounting)] -> the labels of the runs during which the machine was busy."""
    return [f"{label} ({a['other_load']:.0%})" for label, a in labelled if a["other_load"] > LOAD_WARNING]


def busy_rows(benchmark, result):
    """The closing table's warning row for runs made on a busy machine (none when there were none)."""
    if not result.get("busy_machine_runs"):
        return []
    return [(benchmark, f"WARNING: other processes used > {LOAD_WARNING:.0%} of the CPUs during (seconds not comparable)",
             ", ".join(result["busy_machine_runs"]))]


def median_task_cpu(runs):
    """The median of the runs' task CPU seconds (Spark's executorCpuTime), None when unknown."""
    v = [a["task_cpu_s"] for a in runs if a.get("task_cpu_s") is not None]
    return statistics.median(v) if v else None
