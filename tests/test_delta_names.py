"""Delta Lake's names served by Silt when delta-spark is not on the classpath: format("delta"),
USING delta, delta.`path` and catalog tables of provider delta; with delta-spark present, those
names stay Delta Lake's and Silt keeps to silt (a child process with both engines)."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import silt
from conftest import INTEROP_DIR, python_env

pytestmark = pytest.mark.smoke


def engine_of(path, version=0):
    with open(os.path.join(path, "_delta_log", f"{version:020d}.json")) as f:
        for line in f:
            a = json.loads(line)
            if "commitInfo" in a:
                return a["commitInfo"]["engineInfo"]


def test_delta_names_are_silts_without_delta_spark(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(5).write.format("delta").save(p)
    assert engine_of(p).startswith("Silt/")
    spark.sql(f"DELETE FROM delta.`{p}` WHERE id = 0")
    assert spark.read.format("delta").load(p).count() == 4
    assert [r.operation for r in spark.sql(f"DESCRIBE HISTORY delta.`{p}`").collect()] == ["DELETE", "WRITE"]
    assert spark.read.format("silt").load(p).count() == 4  # the same table under either name

    # a metastore entry of provider delta (as Delta Lake registers its tables) is served too
    spark.sql("DROP TABLE IF EXISTS delta_named")
    spark.sql(f"CREATE TABLE delta_named USING delta LOCATION '{p}'")
    provider = spark.sql("DESCRIBE TABLE EXTENDED delta_named").where("col_name = 'Provider'").first().data_type
    assert provider == "delta"
    spark.sql("INSERT INTO delta_named VALUES (10)")
    assert spark.table("delta_named").count() == 5 and engine_of(p, 2).startswith("Silt/")
    spark.sql("DROP TABLE delta_named")


def test_delta_names_can_be_turned_off(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(1).write.format("silt").save(p)
    spark.conf.set("spark.silt.deltaNames.enabled", "false")
    try:
        with pytest.raises(Exception, match="delta"):
            spark.read.format("delta").load(p).collect()
        with pytest.raises(Exception):
            spark.sql(f"SELECT * FROM delta.`{p}`").collect()
    finally:
        spark.conf.unset("spark.silt.deltaNames.enabled")
    assert spark.read.format("delta").load(p).count() == 1


BOTH_ENGINES = textwrap.dedent("""
    import json, os, sys
    from pyspark.sql import SparkSession
    import silt
    from reference_delta import DELTA_PACKAGE
    builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
               .config("spark.jars.packages", DELTA_PACKAGE)
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
               .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
    spark = silt.configure(builder, catalog=False).getOrCreate()
    root = sys.argv[1]
    spark.range(3).write.format("delta").save(root + "/d")
    spark.range(3).write.format("silt").save(root + "/s")
    spark.read.format("delta").load(root + "/d").count()
    spark.read.format("silt").load(root + "/s").count()
    def engine(p):
        for line in open(p + "/_delta_log/" + "0" * 20 + ".json"):
            if "commitInfo" in line:
                return json.loads(line)["commitInfo"]["engineInfo"]
    print("@@" + json.dumps({"delta": engine(root + "/d"), "silt": engine(root + "/s")}))
""")


@pytest.mark.full  # second tier: a Spark with both engines' jars (Ivy resolution, a JVM of its own)
def test_with_delta_spark_on_the_classpath_delta_names_stay_delta_lakes(tmp_path):
    sys.path.insert(0, str(INTEROP_DIR))
    from reference_delta import DELTA_PACKAGE
    if DELTA_PACKAGE is None:
        pytest.skip("no delta-spark release is built for this Spark")
    env = dict(python_env(), PYTHONPATH=os.pathsep.join([str(INTEROP_DIR), python_env().get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", BOTH_ENGINES, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=600)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("@@")]
    assert proc.returncode == 0 and lines, proc.stderr[-4000:]
    engines = json.loads(lines[-1][2:])
    assert "Delta-Lake/" in engines["delta"] and not engines["delta"].startswith("Silt/")
    assert engines["silt"].startswith("Silt/")
    assert proc.stderr.count("delta-spark is on the classpath") == 1
