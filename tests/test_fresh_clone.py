"""The fresh-clone path: a `git clone` of the repository into an empty folder (nothing beside it, so
nothing outside the repository can be read), then the README's commands: `make demo`, and the conformance
and DML tests in the environment the clone builds. Second tier (`make test-full`).

The engine's build outputs (the jars, the generated SQL parser) are copied into the clone instead of
compiled again: CI itself runs on a fresh clone and builds them there, so compiling them twice proves
nothing more. What is tested here is that the demo and the tests read nothing outside the checkout.
The package caches of this machine (pip, Ivy, Coursier) are kept: the network is not under test."""
import os
import shutil
import subprocess

import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.full


def _run(cmd, cwd, env, timeout):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def test_a_fresh_clone_builds_demos_and_tests_itself(tmp_path):
    clone = tmp_path / "silt"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], check=True, timeout=300)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["silt"]
    # The clone's make must not inherit this run's make, environment overrides or virtual environment.
    env = {k: v for k, v in os.environ.items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SILT_CONFORMANCE_DIR", "VIRTUAL_ENV", "PYTHONPATH")}

    for built in ("python/silt/jars", "python/silt/sql/generated"):
        # shutil.copy stamps the copies now: newer than the clone's sources, so make keeps them.
        shutil.copytree(REPO_ROOT / built, clone / built, copy_function=shutil.copy)
    demo = _run(["make", "demo"], clone, env, 1800)
    assert "bin/sbt" not in demo, "the copied jars were rebuilt: " + demo[-3000:]
    assert "files got a deletion vector, 0 data files rewritten" in demo, demo[-3000:]
    assert "before ZORDER" in demo and (clone / "build" / "demo" / "layout.png").is_file(), demo[-3000:]

    _run(["make", "venv"], clone, env, 1800)
    out = _run([str(clone / ".venv" / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "tests/test_conformance.py", "tests/test_dml.py"], clone, env, 1800)
    assert " passed" in out.splitlines()[-1] and "failed" not in out.splitlines()[-1], out[-3000:]
