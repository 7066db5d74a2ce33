"""The write / read / skip path in `local-cluster[2,1,1024]` mode: executors are separate JVMs,
so nothing may work only because driver and executors share memory (the jar must reach the
executors, everything sent to them must serialize, stats must travel back to the driver).

The scenario (tests/scenarios/local_cluster.py) runs in a subprocess, since its master differs
from the test session's.
"""
import json
import subprocess
import sys

import pytest

from conftest import TESTS_DIR, python_env, silt_jar

pytestmark = pytest.mark.full  # second tier: make test-full

TIMEOUT_S = 240


@pytest.fixture(scope="module")
def scenario(tmp_path_factory):
    if silt_jar() is None:
        pytest.fail("the Silt jar is not built (python/silt/jars/silt-spark_*.jar)")
    path = tmp_path_factory.mktemp("local_cluster") / "t"
    proc = subprocess.run([sys.executable, str(TESTS_DIR / "scenarios" / "local_cluster.py"), str(path)],
                          env=python_env(), capture_output=True, text=True, timeout=TIMEOUT_S)
    lines = [l for l in proc.stdout.splitlines() if l.startswith("@@RESULT@@ ")]
    if proc.returncode != 0 or not lines:
        pytest.fail(f"local-cluster scenario failed (exit {proc.returncode}):\n"
                    f"stdout: {proc.stdout[-2000:]}\nstderr: {proc.stderr[-8000:]}")
    return json.loads(lines[-1][len("@@RESULT@@ "):])


def test_runs_on_two_executor_jvms(scenario):
    assert scenario["executors"] == 2, scenario


def test_reads_back_what_it_wrote(scenario):
    assert scenario["count"] == 30000
    assert scenario["sum_id"] == 30000 * 29999 // 2
    assert scenario["distinct_s"] == 30000
    assert scenario["v0_count"] == 20000
    assert scenario["history_versions"] == [0, 1]


def test_skips_files_by_partition_and_stats(scenario):
    assert scenario["selective_rows"] == list(range(1, 100, 4))
    # part = 1 prunes to that partition's files (4 per commit); id < 100 lies in the first id
    # range of the first commit only, so stats leave exactly one file.
    assert scenario["files_total"] >= 8, scenario
    assert scenario["selective_files"] == 1, scenario
