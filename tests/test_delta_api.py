"""Code written for Delta Lake runs on Silt: the example programs in examples/delta_api (Delta
Lake's documented Python API and SQL, with only the imports and the session set-up changed) run
unchanged here, and DeltaTable's methods return what delta-spark's return."""
import re
import runpy
from pathlib import Path

import pytest
from pyspark.sql import DataFrame

import silt
from conftest import REPO_ROOT
from silt.delta.tables import DeltaMergeBuilder, DeltaOptimizeBuilder, DeltaTable, DeltaTableBuilder

pytestmark = pytest.mark.smoke

EXAMPLES = sorted((REPO_ROOT / "examples" / "delta_api").glob("*.py"))


@pytest.mark.parametrize("program", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_delta_lake_programs_run_unchanged_but_for_imports_and_session(spark, program):
    source = program.read_text()
    # what may differ from the program on delta-spark: the imports and the session, each marked
    code = re.sub(r"#.*", "", source)
    assert not re.search(r"^\s*(from|import)\s+delta\b", code, re.M)
    assert "io.delta" not in code and "DeltaCatalog" not in code
    runpy.run_path(str(program), run_name="__main__")  # its assertions check what it did


def test_delta_table_methods_return_what_delta_spark_returns(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(10).selectExpr("id", "id % 2 AS k").write.format("delta").partitionBy("k").save(p)
    dt = DeltaTable.forPath(spark, p)
    assert dt.delete("id = 1") is None
    assert dt.update("id = 2", {"id": "20"}) is None
    assert isinstance(dt.merge(spark.range(1).selectExpr("id", "0 AS k"), "id = id"), DeltaMergeBuilder)
    assert isinstance(dt.optimize(), DeltaOptimizeBuilder)
    assert isinstance(dt.history(), DataFrame) and isinstance(dt.detail(), DataFrame)
    assert isinstance(dt.vacuum(), DataFrame) and isinstance(dt.restoreToVersion(0), DataFrame)
    assert dt.upgradeTableProtocol(1, 2) is None and dt.addFeatureSupport("appendOnly") is None
    assert isinstance(DeltaTable.create(spark), DeltaTableBuilder)
    assert dt.toDF().count() == 10


def test_merge_names_the_sides_by_their_aliases_or_leaves_them_unaliased(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).selectExpr("id", "'old' AS v").write.format("delta").save(p)
    src = spark.range(2, 4).selectExpr("id", "'new' AS v")
    # aliases given after other operators still name the side
    DeltaTable.forPath(spark, p).alias("t").merge(src.alias("s").where("id >= 0"), "t.id = s.id") \
        .whenMatchedUpdate(set={"v": "s.v"}).whenNotMatchedInsertAll().execute()
    assert sorted(tuple(r) for r in spark.read.format("delta").load(p).collect()) == \
        [(0, "old"), (1, "old"), (2, "new"), (3, "new")]
    # without aliases, columns are named without qualifier where they are not ambiguous
    one = spark.createDataFrame([(9, "nine")], ["key", "val"])
    DeltaTable.forPath(spark, p).merge(one, "id = key").whenNotMatchedInsert(values={"id": "key", "v": "val"}).execute()
    assert spark.read.format("delta").load(p).where("id = 9").first().v == "nine"
    # a table read as a source is named by its table name, as in Delta Lake
    spark.createDataFrame([(0, "zero")], ["id", "v"]).createOrReplaceTempView("updates")
    DeltaTable.forPath(spark, p).alias("t").merge(spark.table("updates"), "t.id = updates.id") \
        .whenMatchedUpdateAll().execute()
    assert spark.read.format("delta").load(p).where("id = 0").first().v == "zero"


def test_refused_builder_and_table_options_name_themselves(spark, tmp_path):
    g = DeltaTable.create(spark).location(str(tmp_path / "g")).addColumn("a", "INT") \
        .addColumn("b", "INT", generatedAlwaysAs="a + 1").execute()
    spark.createDataFrame([(1,)], "a INT").write.format("delta").mode("append").save(str(tmp_path / "g"))
    assert [tuple(r) for r in g.toDF().collect()] == [(1, 2)]
    with pytest.raises(silt.UnsupportedOptionException, match="generatedByDefaultAs of column b"):
        DeltaTable.create(spark).location(str(tmp_path / "i")).addColumn("a", "INT") \
            .addColumn("b", "BIGINT", generatedByDefaultAs="a").execute()
    with pytest.raises(silt.UnsupportedOptionException, match="hadoopConf"):
        DeltaTable.forPath(spark, str(tmp_path), hadoopConf={"fs.s3a.access.key": "k"})
    with pytest.raises(ValueError, match="'set'"):
        DeltaTable.forPath(spark, _table(spark, tmp_path)).update("id = 1")
    with pytest.raises(silt.NotADeltaTableException):
        DeltaTable.forPath(spark, str(tmp_path / "none"))


def test_protocol_upgrades_go_up_only_and_refuse_what_silt_does_not_write(spark, tmp_path):
    dt = DeltaTable.forPath(spark, _table(spark, tmp_path))
    dt.upgradeTableProtocol(1, 3)
    dt.upgradeTableProtocol(1, 1)  # lower: nothing changes, as in Delta Lake
    d = dt.detail().first()
    assert (d.minReaderVersion, d.minWriterVersion) == (1, 3)
    assert not any(k.startswith("delta.min") for k in d.properties)  # the protocol, not the configuration
    with pytest.raises(silt.UnsupportedTableFeatureException, match="icebergCompatV2"):
        dt.addFeatureSupport("icebergCompatV2")
    with pytest.raises(silt.UnsupportedOptionException, match="delta.minWriterVersion"):
        dt.upgradeTableProtocol(1, 9)
    assert dt.detail().first().minWriterVersion == 3


def _table(spark, tmp_path) -> str:
    p = str(tmp_path / "plain")
    if not Path(p).exists():
        spark.range(3).write.format("silt").save(p)
    return p
