"""The Python API over Spark Connect: same calls, same results, same typed errors."""
import json
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, python_env


@pytest.mark.full  # second tier: starts a Spark Connect server
def test_silt_table_over_spark_connect():
    pytest.importorskip("grpc")
    r = subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "scenarios" / "spark_connect.py")],
                       env=python_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["rows"] == 95 and out["fifty"] == "fifty" and out["src"] == 10
    assert out["history"][2:6] == ["OPTIMIZE", "MERGE", "UPDATE", "DELETE"]
    assert out["delta_api"] == [[15, "delta"], [16, "delta"], [17, "delta"], [18, "delta"], [19, "nineteen"]]
    assert out["error"] == "NotADeltaTableException"
