"""The wheel `make dist` writes, installed as a user installs it: into a fresh virtual environment
that has only pip, with the default minor's pyspark and with pyspark 3.5 (its Scala 2.12 jar; on Python 3.10
and 3.12 too where this machine has them), run
from a folder outside the checkout, so that nothing of the repository is on the path. It writes a
table, DELETEs with deletion vectors, runs OPTIMIZE ZORDER BY, reads, the `silt` entry point answers
--help, and the reference Delta Lake reads the table; every minor's jar is in the wheel. The second tier's
heavy part (`make test-heavy`, which builds the wheel with every minor's jar); the second tier runs the pyspark 3.5
case on a wheel of the jars it built (SILT_WHEEL_DIR)."""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

import silt
from conftest import REPO_ROOT
from silt.session import SPARK_MINORS
from test_interop import run_reference

pytestmark = pytest.mark.full


def _pyspark_of(minor):
    """The pyspark release the Makefile tests `minor` on (its PYSPARK_<minor>)."""
    return re.search(rf"^PYSPARK_{re.escape(minor)}\s*:=\s*(\S+)", (REPO_ROOT / "Makefile").read_text(), re.M).group(1)


PROGRAM = textwrap.dedent("""
    import json, sys
    from pyspark.sql import SparkSession
    import silt

    assert "site-packages" in silt.__file__, silt.__file__
    path = sys.argv[1]
    spark = (silt.configure(SparkSession.builder.master("local[2]"))
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v BIGINT) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.range(0, 10000, numPartitions=4).selectExpr("id", "id % 97 AS v").write.format("silt").mode("append").save(path)
    files = {r["path"] for r in spark.sql(f"DESCRIBE FILES '{path}'").collect()}
    deleted = spark.sql(f"DELETE FROM silt.`{path}` WHERE id % 10 = 0").first()["num_affected_rows"]
    dvs = silt.SiltTable.for_path(spark, path).deletion_vectors().count()
    same_files = {r["path"] for r in spark.sql(f"DESCRIBE FILES '{path}'").collect()} == files
    metrics = spark.sql(f"OPTIMIZE silt.`{path}` ZORDER BY (v, id)").first()["metrics"]
    rows = spark.read.format("silt").load(path)
    print("RESULT " + json.dumps({"jar": silt.jar_path().name, "deleted": deleted, "dvs": dvs, "same_files": same_files,
                                  "optimized": metrics["numFilesAdded"] > 0, "rows": rows.count(),
                                  "multiple_of_ten": rows.where("id % 10 = 0").count(),
                                  "first_version": spark.read.format("silt").option("versionAsOf", 1).load(path).count()}))
    spark.stop()
""")


@pytest.mark.parametrize("version,minor,scala", [("3.5.9", "3.5", "2.12"), ("4.0.5", "4.0", "2.13"), ("4.1.4", "4.1", "2.13"),
                                                ("4.2.1", "4.2", "2.13"), ("4.3.0", "4.3", "2.13")])
def test_each_supported_minor_has_its_jar_in_the_package_and_the_wheel(version, minor, scala):
    assert minor in SPARK_MINORS
    jar = silt.jar_path(version).name
    assert jar.startswith(f"silt-spark_{minor}_{scala}-")
    assert f"silt/jars/{jar}" in zipfile.ZipFile(_the_wheel(str(REPO_ROOT / "dist"))).namelist()


def _the_wheel(folder):
    """The one wheel `make dist` (or the second tier's test-wheel) left in `folder`."""
    wheels = glob.glob(os.path.join(folder, "silt-*-py3-none-any.whl"))
    assert len(wheels) == 1, f"expected one wheel in {folder} (run `make dist`), found {wheels}"
    return wheels[0]


def _python(version):
    """An interpreter of Python `version` ("3.12"; None: this one) that can make a virtual environment, or None."""
    if version is None:
        return sys.executable
    found = [shutil.which(f"python{version}")] + \
        sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
    for candidate in filter(None, found):  # a pyenv shim names a version it may not run
        if subprocess.run([candidate, "-c", "import ensurepip"], capture_output=True).returncode == 0:
            return candidate
    return None


@pytest.mark.parametrize("pyspark_release,python_version", [
    (None, None), (_pyspark_of("3.5"), None), (_pyspark_of("3.5"), "3.10"), (_pyspark_of("3.5"), "3.12"),
], ids=["default-minor", "spark-3.5", "spark-3.5-python-3.10", "spark-3.5-python-3.12"])
def test_the_wheel_installs_and_works_outside_the_checkout(tmp_path, pyspark_release, python_version):
    wheel = _the_wheel(os.environ.get("SILT_WHEEL_DIR", str(REPO_ROOT / "dist")))
    interpreter = _python(python_version)
    if interpreter is None:
        pytest.skip(f"no Python {python_version} on this machine (on PATH as python{python_version}, or by pyenv)")
    env_dir = tmp_path / "env"
    subprocess.run([interpreter, "-m", "venv", "--clear", str(env_dir)], check=True, timeout=300)
    python, pip = env_dir / "bin" / "python", env_dir / "bin" / "pip"
    installed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True)
    assert {line.split("==")[0] for line in installed.stdout.split()} <= {"pip", "setuptools"}, installed.stdout
    # The default minor's pyspark (so that pip does not pick a newer one than the one Silt is tested on), or 3.5's.
    import pyspark
    release = pyspark_release or pyspark.__version__
    subprocess.run([str(pip), "install", "-q", wheel, f"pyspark=={release}"], check=True, timeout=1200)

    work = tmp_path / "elsewhere"
    work.mkdir()
    (work / "program.py").write_text(PROGRAM)
    clean_env = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "JAVA_HOME": _java_home()}
    run = subprocess.run([str(python), "program.py", str(tmp_path / "table")], cwd=work, env=clean_env,
                         capture_output=True, text=True, timeout=600)
    lines = [line for line in run.stdout.splitlines() if line.startswith("RESULT ")]
    assert run.returncode == 0 and lines, run.stderr[-4000:]
    result = json.loads(lines[-1][len("RESULT "):])
    minor = ".".join(release.split(".")[:2])
    assert result.pop("jar") == f"silt-spark_{minor}_{'2.12' if minor == '3.5' else '2.13'}-0.1.0.jar"
    assert result == {"deleted": 1000, "dvs": 4, "same_files": True, "optimized": True, "rows": 9000,
                      "multiple_of_ten": 0, "first_version": 10000}
    [read] = run_reference([{"op": "read", "path": str(tmp_path / "table")}])
    assert read["ok"] and read["num_rows"] == 9000, read.get("error")

    cli = subprocess.run([str(env_dir / "bin" / "silt"), "--help"], cwd=work, env=clean_env,
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 0 and "inspect" in cli.stdout, cli.stdout + cli.stderr


def _java_home():
    if os.environ.get("JAVA_HOME"):
        return os.environ["JAVA_HOME"]
    java = shutil.which("java")
    assert java, "java is not on PATH"
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))
