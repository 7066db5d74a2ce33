"""A JVM job written for Delta Lake's Scala API (examples/jvm), moved to Silt by its import, runs with
spark-submit on Silt's published artifact: `--packages io.silt:silt-spark_<minor>_2.13` resolved from a
Maven repository folder, as a user's job resolves it from ~/.m2 after `make publish-local`."""
import os
import subprocess
import sys
from pathlib import Path

import pyspark
import pytest

from conftest import REPO_ROOT, SPARK_TEST_CONF

pytestmark = pytest.mark.full  # second tier: spark-submit of a JVM job (its jar and the repository: make build-all)

MINOR = ".".join(pyspark.__version__.split(".")[:2])
REPOSITORY = REPO_ROOT / "target" / "maven"
EXAMPLE = REPO_ROOT / "examples" / "jvm" / "target" / f"spark-{MINOR}" / "scala-2.13" / "silt-jvm-example_2.13-0.1.0.jar"


def test_a_scala_job_written_for_delta_lake_runs_with_spark_submit(tmp_path):
    artifact = REPOSITORY / "io" / "silt" / f"silt-spark_{MINOR}_2.13" / "0.1.0"
    assert EXAMPLE.exists() and artifact.exists(), "build them first: make jvm-example"
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    conf = dict(SPARK_TEST_CONF, **{
        "spark.sql.extensions": "io.silt.SiltSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "io.silt.catalog.SiltCatalog",
        "spark.sql.warehouse.dir": str(tmp_path / "warehouse"),
        # a cache of its own, so that the artifact is the one just published
        "spark.jars.ivy": str(tmp_path / "ivy"),
    })
    command = [str(spark_submit), "--master", "local[2]", "--class", "io.silt.examples.DeltaJob",
               "--repositories", REPOSITORY.as_uri(), "--packages", f"io.silt:silt-spark_{MINOR}_2.13:0.1.0"]
    for k, v in conf.items():
        command += ["--conf", f"{k}={v}"]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    r = subprocess.run(command + [str(EXAMPLE), str(tmp_path / "table")], capture_output=True, text=True,
                       timeout=600, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-4000:]
    out = dict(line.split(" ", 1) for line in r.stdout.splitlines() if line.split(" ", 1)[0] in ("ROWS", "HISTORY", "BUILT"))
    assert out["ROWS"] == "1=b,2=c,3=m!,4=n"
    assert out["HISTORY"] == "WRITE,DELETE,UPDATE,UPDATE,MERGE,OPTIMIZE"
    assert out["BUILT"] == "id,n"
