"""Concurrent writers in separate processes: every append lands exactly once."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import REPO_ROOT, python_env

WRITER = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests!r})
    from conftest import build_silt_session
    from pyspark.sql import functions as F
    spark = build_silt_session(master="local[1]")
    path, writer, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    for i in range(n):
        (spark.range(0, 10).withColumn("writer", F.lit(writer)).withColumn("batch", F.lit(i))
         .write.format("silt").mode("append").save(path))
    print("done", writer)
""")


@pytest.mark.full  # second tier: JVMs of their own (the soak slice races processes in make test)
def test_processes_appending_at_once_all_land(spark, tmp_path):
    path = str(tmp_path / "t")
    spark.createDataFrame([], "id long, writer int, batch int").write.format("silt").save(path)
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format(tests=str(REPO_ROOT / "tests")))
    writers, batches = 2, 4
    procs = [subprocess.Popen([sys.executable, str(script), path, str(w), str(batches)],
                              env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for w in range(writers)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-3000:]
    commits = sorted(Path(path, "_delta_log").glob("*.json"))
    assert len(commits) == 1 + writers * batches
    t = spark.read.format("silt").load(path)
    counts = {(r["writer"], r["batch"]): r["count"] for r in t.groupBy("writer", "batch").count().collect()}
    assert counts == {(w, b): 10 for w in range(writers) for b in range(batches)}
