"""Deletion vectors and checkpoints across engines: the reference Delta Lake reads Silt's tables
(inline and file DVs after repeated DELETEs, UPDATE, MERGE; a V2 checkpoint with sidecars), and
Silt reads a DV table the reference Delta Lake wrote."""
import pytest
from pyspark.sql import functions as F

from conftest import load_canon
from test_interop import read_duckdb, run_reference

# second tier (make test-full), also on each other Spark minor's reference release (Delta 3.3 on Spark 3.5)
pytestmark = [pytest.mark.full, pytest.mark.smoke, pytest.mark.reference]


def rendered(df_or_table, columns):
    canon = load_canon()
    table = canon.arrow_table(df_or_table)
    return canon.render_table(table, columns)[0]


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("interop_dv")
    dv = str(root / "silt_dv")
    spark.sql(f"CREATE TABLE silt.`{dv}` (id BIGINT, k INT, s STRING) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    (spark.range(0, 3000, numPartitions=3).select("id", (F.col("id") % 5).cast("int").alias("k"),
                                                  F.concat(F.lit("s"), F.col("id").cast("string")).alias("s"))
     .write.format("silt").mode("append").save(dv))
    spark.conf.set("spark.silt.deletionVectors.inlineThreshold", "64")
    try:
        spark.sql(f"DELETE FROM silt.`{dv}` WHERE id = 5")            # small bitmaps: inline
    finally:
        spark.conf.unset("spark.silt.deletionVectors.inlineThreshold")
    spark.sql(f"DELETE FROM silt.`{dv}` WHERE id % 7 = 0")             # file DVs united with inline ones
    spark.sql(f"DELETE FROM silt.`{dv}` WHERE id % 11 = 0")
    spark.sql(f"UPDATE silt.`{dv}` SET s = 'updated' WHERE id % 13 = 0")
    spark.range(2990, 3010).select("id", F.lit(9).alias("k"), F.lit("merged").alias("s")).createOrReplaceTempView("dv_src")
    spark.sql(f"MERGE INTO silt.`{dv}` t USING dv_src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    v2 = str(root / "silt_v2")
    spark.sql(f"CREATE TABLE silt.`{v2}` (id BIGINT, k INT) USING silt TBLPROPERTIES "
              "('delta.checkpointPolicy' = 'v2', 'delta.enableDeletionVectors' = 'true')")
    for i in range(3):
        spark.range(i * 100, i * 100 + 100).select("id", F.lit(i).alias("k")).write.format("silt").mode("append").save(v2)
    spark.sql(f"DELETE FROM silt.`{v2}` WHERE id % 3 = 0")
    spark.sql(f"CHECKPOINT silt.`{v2}`")
    ref = str(root / "reference_dv")
    results = run_reference([
        {"op": "sql", "statements": [
            f"CREATE TABLE delta.`{ref}` (id BIGINT, k INT) USING delta TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
            f"INSERT INTO delta.`{ref}` SELECT id, CAST(id % 4 AS INT) FROM range(0, 2000)",
            f"DELETE FROM delta.`{ref}` WHERE id % 9 = 0",
            f"UPDATE delta.`{ref}` SET k = 42 WHERE id % 10 = 1"]},
        {"op": "read", "path": dv}, {"op": "read", "path": v2}, {"op": "read", "path": ref},
        {"op": "read", "path": dv, "version": 2}])
    return {"dv": dv, "v2": v2, "ref": ref, "results": results}


def test_reference_reads_silt_dv_table(spark, tables):
    res = tables["results"][1]
    assert res["ok"], res.get("error")
    ours = rendered(spark.read.format("silt").load(tables["dv"]), res["columns"])
    assert res["rows"] == ours and len(ours) > 2000


def test_reference_reads_silt_inline_dvs(spark, tables):
    commit = open(f"{tables['dv']}/_delta_log/00000000000000000002.json").read()
    assert '"storageType":"i"' in commit
    res = tables["results"][4]
    assert res["ok"], res.get("error")
    ours = rendered(spark.read.format("silt").option("versionAsOf", 2).load(tables["dv"]), res["columns"])
    assert res["rows"] == ours and len(ours) == 2999


def test_duckdb_reads_silt_dv_table(spark, tables):
    cols = ["id", "k", "s"]
    assert rendered(read_duckdb(tables["dv"]), cols) == rendered(spark.read.format("silt").load(tables["dv"]), cols)


def test_reference_reads_silt_v2_checkpoint(spark, tables):
    res = tables["results"][2]
    assert res["ok"], res.get("error")
    assert res["rows"] == rendered(spark.read.format("silt").load(tables["v2"]), res["columns"])
    assert res["num_rows"] == 200


def test_silt_reads_reference_dv_table(spark, tables):
    assert tables["results"][0]["ok"], tables["results"][0].get("error")
    res = tables["results"][3]
    assert res["ok"], res.get("error")
    ours = rendered(spark.read.format("silt").load(tables["ref"]), res["columns"])
    assert ours == res["rows"] and len(ours) == 2000 - 223
