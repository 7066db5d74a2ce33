"""The silt command line: syntax errors before any JVM, inspect, layout pictures."""
import json
import subprocess
import sys
import time

import pytest
from pyspark.sql import functions as F

from silt.cli import coverage, inspect_table, layout, main, plot, skipping_score
from silt.sql.check import check, is_silt_statement
from conftest import python_env


def test_syntax_errors_are_reported_with_a_caret_without_a_jvm(capsys):
    t0 = time.time()
    assert main(["sql", "OPTIMIZE events ZORDER BY ()"]) == 2
    err = capsys.readouterr().err
    assert "line 1, column 28" in err and err.rstrip().endswith("^")
    assert time.time() - t0 < 5
    problem = check("VACUUM t RETAIN x HOURS")
    assert problem is not None and problem.column == 16
    assert check("SELECT * FROM nothing WHERE") is None  # Spark's to judge
    assert check("describe history 'p' limit 3") is None
    assert is_silt_statement("desc files t") and not is_silt_statement("DESCRIBE TABLE t")


def test_skipping_score():
    grid = [(i / 8, (i + 1) / 8) for i in range(8)]
    assert abs(skipping_score(grid) - 0.135) < 0.03
    assert skipping_score([(0.0, 1.0)] * 4) == 1.0


def test_inspect_and_layout(spark, tmp_path):
    p = str(tmp_path / "t")
    (spark.range(0, 20000, numPartitions=8).select("id", (F.rand(1) * 100).alias("x"), (F.rand(2) * 100).alias("y"))
     .write.format("silt").save(p))
    info = inspect_table(spark, p)
    assert (info["files"], info["rows"], info["version"], info["deletion_vectors"]) == (8, 20000, 0, 0)
    assert info["history"][0]["operation"] == "WRITE"
    before = layout(spark, p, ["x", "y"])
    assert before["skipping_score"]["x"] > 0.9
    spark.conf.set("spark.silt.optimize.maxFileSize", str(info["bytes"] // 16))
    try:
        spark.sql(f"OPTIMIZE '{p}' ZORDER BY (x, y)")
    finally:
        spark.conf.unset("spark.silt.optimize.maxFileSize")
    after = layout(spark, p, ["x", "y"])
    assert after["skipping_score"]["x"] < 0.4 and after["skipping_score"]["y"] < 0.4
    # Before, every file spans the plane, so a point lies in every file; after, in a few.
    extent = (0.0, 100.0, 0.0, 100.0)
    assert coverage(before["boxes"], extent, 40).min() == len(before["boxes"])
    assert coverage(after["boxes"], extent, 40).mean() < len(after["boxes"]) / 4
    out = tmp_path / "layout.png"
    plot([before, after], str(out), ["before", "after"])
    assert out.stat().st_size > 1000


@pytest.mark.full  # second tier: JVMs of their own
def test_module_entry_point(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 10).write.format("silt").save(p)
    r = subprocess.run([sys.executable, "-m", "silt", "inspect", p, "--json"], env=python_env(),
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["rows"] == 10
    r = subprocess.run([sys.executable, "-m", "silt", "inspect", str(tmp_path)], env=python_env(),
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 1 and "NotADeltaTableException" in r.stderr


@pytest.mark.full  # second tier: make test was past 15 minutes (21 s)
def test_progress_bar_shows_the_running_job(spark):
    import io

    from silt.progress import ProgressBar, render
    assert render(3, 12, "OPTIMIZE t: bin 1 of 2", width=4) == "[#...]  25%  3/12 tasks  OPTIMIZE t: bin 1 of 2"
    out = io.StringIO()
    spark.sparkContext.setJobDescription("SILT PROGRESS TEST")
    try:
        with ProgressBar(spark, out=out, interval=0.05, force=True):
            spark.range(0, 3_000_000, 1, 16).selectExpr("count(distinct sha2(cast(id AS STRING), 256))").collect()
    finally:
        spark.sparkContext.setJobDescription(None)
    drawn = out.getvalue()
    assert "tasks  SILT PROGRESS TEST" in drawn and drawn.endswith("\r\033[K")


def test_misspelt_silt_keyword_is_caught_before_any_jvm(capsys):
    t0 = time.time()
    assert main(["sql", "OPTIMZE events ZORDER BY (x)"]) == 2
    err = capsys.readouterr().err
    assert "did you mean OPTIMIZE?" in err and err.rstrip().endswith("^")
    assert time.time() - t0 < 5
    assert check("VACUM t") is not None and "VACUUM" in check("VACUM t").message
    for spark_statement in ("SELECT 1", "RESET", "SHOW TABLES", "REFRESH TABLE t", "CREATE TABLE t (a INT)"):
        assert check(spark_statement) is None, spark_statement


@pytest.mark.full  # second tier: JVMs of their own
def test_engine_errors_are_clean_messages_not_tracebacks():
    for statement, expected in (("SELEC 1", "PARSE_SYNTAX_ERROR"),
                                ("SELECT * FROM no_such_table_anywhere", "TABLE_OR_VIEW_NOT_FOUND")):
        r = subprocess.run([sys.executable, "-m", "silt", "sql", statement], env=python_env(),
                           capture_output=True, text=True, timeout=180)
        assert r.returncode == 1, r.stderr[-2000:]
        assert expected in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]
