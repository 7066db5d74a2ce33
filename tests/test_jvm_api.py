"""A JVM job written for Delta Lake's Scala API (examples/jvm), moved to Silt by its import, runs with
spark-submit on Silt's published artifact: `--packages io.silt:silt-spark_<minor>_2.13` resolved from a
Maven repository folder, as a user's job resolves it from ~/.m2 after `make publish-local`. The same
source with its import put back (examples/jvm/on-delta) runs on the reference Delta Lake and prints
the same lines."""
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
JAR = f"spark-{MINOR}/scala-2.13/silt-jvm-example{{}}_2.13-0.1.0.jar"
EXAMPLE = REPO_ROOT / "examples" / "jvm" / "target" / JAR.format("")
ON_DELTA = REPO_ROOT / "examples" / "jvm" / "on-delta" / "target" / JAR.format("-on-delta")

# What the job prints (its rows sorted, each row's values joined by ':'), as the reference prints it.
EXPECTED = {
    "QUICKSTART": "0,1,10,11,12,13,14,15,16,17,18,19,2,3,4,5,6,7,8,9",
    "VERSION0": "0,1,2,3,4",
    "ROWS": "1:b,2:c,3:m!,4:n",
    "CHANGES": "0:a:delete:2,1:a:update_preimage:3,1:b:update_postimage:3,2:a:update_preimage:4,"
               "2:c:update_postimage:4,3:a:update_preimage:5,3:m!:update_postimage:5,4:n:insert:5",
    "OPTIMIZED": "OPTIMIZE:[\"id\"]",
    "RESTORED": "0:a,1:a,2:a,3:a",
    "HISTORY": "WRITE,SET TBLPROPERTIES,DELETE,UPDATE,UPDATE,MERGE,OPTIMIZE,RESTORE,"
               "VACUUM START,VACUUM END,VACUUM START,VACUUM END",
    "DETAIL": "delta:[]",
    "CLONE": "0:a,1:a,2:a,3:a",
    "IS_DELTA": "false true",
    "CONVERTED": "1:10,2:20",
    "BUILT": "id,n",
    "BUILT_ROWS": "7:1,8:2",
}


def submit(jar: Path, tmp_path: Path, packages: str, conf: dict, repositories=()) -> dict:
    """Runs the job in `jar` with spark-submit and returns the lines it printed, by their first word
    (a word printed twice keeps both values, joined by a space)."""
    assert jar.exists(), "build it first: make jvm-example"
    spark_submit = Path(pyspark.__file__).parent / "bin" / "spark-submit"
    command = [str(spark_submit), "--master", "local[2]", "--class", "io.silt.examples.DeltaJob", "--packages", packages]
    for r in repositories:
        command += ["--repositories", r]
    for k, v in dict(SPARK_TEST_CONF, **conf, **{"spark.sql.warehouse.dir": str(tmp_path / "warehouse")}).items():
        command += ["--conf", f"{k}={v}"]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    r = subprocess.run(command + [str(jar), str(tmp_path / "tables")], capture_output=True, text=True,
                       timeout=900, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-4000:]
    out: dict = {}
    for line in r.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key in EXPECTED:
            out[key] = f"{out[key]} {value}" if key in out else value
    return out


def test_a_scala_job_written_for_delta_lake_runs_with_spark_submit(tmp_path):
    artifact = REPOSITORY / "io" / "silt" / f"silt-spark_{MINOR}_2.13" / "0.1.0"
    assert artifact.exists(), "publish it first: make jvm-example"
    out = submit(EXAMPLE, tmp_path, f"io.silt:silt-spark_{MINOR}_2.13:0.1.0", {
        "spark.sql.extensions": "io.silt.SiltSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "io.silt.catalog.SiltCatalog",
        # a cache of its own, so that the artifact is the one just published
        "spark.jars.ivy": str(tmp_path / "ivy"),
    }, repositories=[REPOSITORY.as_uri()])
    assert out == EXPECTED


@pytest.mark.reference
def test_the_same_job_prints_the_same_lines_on_the_reference(tmp_path):
    import test_interop  # noqa: F401 - puts tests/interop (reference_delta) on the path
    from reference_delta import DELTA_PACKAGE
    if DELTA_PACKAGE is None:
        pytest.skip(f"no reference Delta Lake release is built for Spark {pyspark.__version__}")
    out = submit(ON_DELTA, tmp_path, DELTA_PACKAGE, {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        # as the reference server runs it (tests/interop/reference_delta.py): its default, 50 tasks
        # for each snapshot's state, makes every statement several seconds on 2 cores
        "spark.databricks.delta.snapshotPartitions": "2",
        # and its VACUUM lists the table with 10000 tasks unless told otherwise
        "spark.sql.sources.parallelPartitionDiscovery.parallelism": "4",
    })
    assert out == EXPECTED
