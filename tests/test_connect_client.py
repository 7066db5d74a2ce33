"""Silt installed beside pyspark-client (without pyspark): the Python layer, over Spark Connect,
against a server with Silt. The client runs in .venvs/connect-client (made by `make build-second-tier`)."""
import json
import os
import socket
import subprocess
import sys

import pytest

from conftest import REPO_ROOT, python_env
from scenarios.column_programs import WRONG_CALLS

pytestmark = pytest.mark.full  # second tier: make test-full

CLIENT = REPO_ROOT / ".venvs" / "connect-client" / "bin" / "python"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_silt_with_pyspark_client_only():
    pytest.importorskip("grpc")
    if not CLIENT.exists():
        pytest.skip("no .venvs/connect-client (made by `make build-second-tier`)")
    check = subprocess.run([str(CLIENT), "-c", "import importlib.metadata as m, silt\n"
                            "names = {d.metadata['Name'].lower() for d in m.distributions()}\n"
                            "print('pyspark' in names, 'pyspark-client' in names)"],
                           capture_output=True, text=True, timeout=120)
    assert check.stdout.split() == ["False", "True"], check.stderr[-2000:]
    port = free_port()
    server = subprocess.Popen([sys.executable, str(REPO_ROOT / "tests" / "scenarios" / "connect_server.py"), str(port)],
                              env=python_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout.readline().strip() == "READY"
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SPARK_HOME")}
        r = subprocess.run([str(CLIENT), str(REPO_ROOT / "tests" / "scenarios" / "spark_connect.py")],
                           env=dict(env, SILT_CONNECT_URL=f"sc://127.0.0.1:{port}"), capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-3000:]
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert out["rows"] == 95 and out["error"] == "NotADeltaTableException"
        assert out["delta_api"][-1] == [19, "nineteen"]
        # Column arguments from pyspark-client alone, through Silt's plugin on the server
        r = subprocess.run([str(CLIENT), str(REPO_ROOT / "tests" / "scenarios" / "connect_columns.py")],
                           env=dict(env, SILT_CONNECT_URL=f"sc://127.0.0.1:{port}"), capture_output=True,
                           text=True, timeout=600)
        assert r.returncode == 0, r.stderr[-3000:]
        columns = json.loads(r.stdout.strip().splitlines()[-1])
        assert columns["rows"]["delete_column"] == [["b", "b", "2"], ["c", "a", "3"], ["d", "d", "4"]]
        assert columns["rows"]["update_mixed"] == [["a", "b", "1"], ["b", "b", "2"], ["c", "a", "3!"], ["d", "d", "4"]]
        assert columns["errors"] == WRONG_CALLS
    finally:
        server.stdin.close()
        server.wait(timeout=60)
