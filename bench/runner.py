"""The one way a benchmark runs something in a child process: each benchmark, and each engine's JVM
inside a benchmark (optimize, peers), gets a Python process of its own, started after the
previous one has exited, so that only one JVM runs at a time and none inherits another's JIT,
caches or heap.

    call("bench.dv:main", ["--rows", "100000"], "dv")   # in the parent
    python -m bench.runner bench.dv:main <params.json> <out.json>   # what the child runs
"""
import importlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import REPO_ROOT, SCRATCH_DIR

STDERR_TAIL = 4000  # characters of a failed child's stderr kept in the error


class ChildFailed(RuntimeError):
    """A child process exited with an error; the message ends with its stderr's tail."""


def call(target, params, label):
    """Calls `module:function`(params) in a child process and returns what it returned (JSON).

    The child's stdout (progress lines) goes through; its stderr (Spark's and Ivy's chatter) goes to
    a file, whose tail is raised in ChildFailed when the child fails."""
    work = SCRATCH_DIR / "children"
    work.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f"{label}-", suffix=".json", dir=work)
    os.close(fd)
    pfile = Path(name)
    ofile, errlog = pfile.with_suffix(".out.json"), pfile.with_suffix(".stderr")
    pfile.write_text(json.dumps(params))
    env = dict(os.environ)
    paths = [str(REPO_ROOT), str(REPO_ROOT / "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env.setdefault("PYSPARK_PYTHON", sys.executable)  # Spark's Python workers: this interpreter
    try:
        with open(errlog, "w") as err:
            rc = subprocess.run([sys.executable, "-m", "bench.runner", target, str(pfile), str(ofile)],
                                stderr=err, env=env, cwd=REPO_ROOT).returncode
        if rc != 0 or not ofile.exists():
            raise ChildFailed(f"{label} ({target}) exited with {rc}; end of its stderr:\n"
                              f"{errlog.read_text()[-STDERR_TAIL:]}")
        return json.loads(ofile.read_text())
    finally:
        for p in (pfile, ofile, errlog):
            p.unlink(missing_ok=True)


def _child(target, pfile, ofile):
    """The child's side: imports the target, calls it with the parameters, writes its result."""
    module, function = target.split(":")
    out = getattr(importlib.import_module(module), function)(json.loads(Path(pfile).read_text()))
    Path(ofile).write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:4]))
