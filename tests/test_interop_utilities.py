"""The table utility commands across engines: the reference Delta Lake and delta-rs read a folder
Silt converted, and shallow clones Silt made, with deletion vectors and without; the reference
engine's CONVERT TO DELTA of an equal folder gives the same table contents as Silt's. DuckDB's delta
extension reads no absolute add path, so no clone (Delta Lake's own included); delta-rs's
to_pyarrow_table neither, so delta-rs reads through its DataFusion QueryBuilder."""
import shutil

import pytest

from conftest import load_canon
from test_interop import read_deltalake, run_reference
from test_table_utilities import log_actions, write_parquet_folder

pytestmark = pytest.mark.full  # second tier: make test-full

PARTITIONS = "PARTITIONED BY (p INT, s STRING)"


def read_delta_rs(path):
    """delta-rs's DataFusion reader (QueryBuilder): unlike to_pyarrow_table, it applies deletion vectors
    and resolves absolute add paths."""
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    return pa.table(QueryBuilder().register("t", DeltaTable(str(path))).execute("SELECT * FROM t").read_all())


def rendered(table, columns):
    return load_canon().render_table(table, columns)[0]


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("interop_utilities")
    folder = root / "pq"
    write_parquet_folder(spark, folder)
    ref_folder = root / "pq_for_reference"
    shutil.copytree(folder, ref_folder)
    spark.sql(f"CONVERT TO DELTA parquet.`{folder}` {PARTITIONS}")

    src, clone = root / "src", root / "clone"
    spark.range(200).selectExpr("id", "CAST(id % 3 AS INT) AS k").repartition(2).write.format("silt") \
        .partitionBy("k").option("delta.enableDeletionVectors", "true").save(str(src))
    spark.sql(f"DELETE FROM silt.`{src}` WHERE id % 7 = 0")
    spark.sql(f"CREATE TABLE silt.`{clone}` SHALLOW CLONE silt.`{src}` VERSION AS OF 1")
    spark.sql(f"DELETE FROM silt.`{clone}` WHERE id % 5 = 0")         # the clone's own DVs on the source's files
    spark.sql(f"DELETE FROM silt.`{src}` WHERE id < 100")              # the source moves on
    assert any(a["add"].get("deletionVector") for a in log_actions(clone, 1) if "add" in a)
    # and a clone of a table without deletion vectors
    plain_src, plain_clone = root / "plain_src", root / "plain_clone"
    spark.range(50).selectExpr("id", "CAST(id % 3 AS INT) AS k").write.format("silt").partitionBy("k").save(str(plain_src))
    spark.sql(f"CREATE TABLE silt.`{plain_clone}` SHALLOW CLONE silt.`{plain_src}`")
    spark.range(50, 60).selectExpr("id", "CAST(id % 3 AS INT) AS k").write.format("silt").mode("append").save(str(plain_clone))

    results = run_reference([
        {"op": "sql", "statements": [f"CONVERT TO DELTA parquet.`{ref_folder}` {PARTITIONS}"]},
        {"op": "read", "path": str(ref_folder)},
        {"op": "read", "path": str(folder)},
        {"op": "read", "path": str(clone)},
    ])
    for r in results:
        assert r.get("ok", True), r
    return {"folder": folder, "ref_folder": ref_folder, "clone": clone, "src": src, "ref": results,
            "plain_clone": plain_clone}


def silt_rendered(spark, path, columns):
    return rendered(load_canon().arrow_table(spark.read.format("silt").load(str(path))), columns)


def test_reference_converts_the_same_table(spark, tables):
    ref_own = tables["ref"][1]
    assert ref_own["columns"] == ["id", "v", "d", "p", "s"]
    assert silt_rendered(spark, tables["folder"], ref_own["columns"]) == ref_own["rows"]
    # and Silt reads the reference engine's conversion as the same rows
    assert silt_rendered(spark, tables["ref_folder"], ref_own["columns"]) == ref_own["rows"]


def test_reference_and_delta_rs_read_the_converted_folder(spark, tables):
    ours = silt_rendered(spark, tables["folder"], tables["ref"][2]["columns"])
    assert tables["ref"][2]["rows"] == ours
    assert rendered(read_deltalake(tables["folder"]), tables["ref"][2]["columns"]) == ours


def test_reference_and_delta_rs_read_the_clone_with_deletion_vectors(spark, tables):
    columns = tables["ref"][3]["columns"]
    ours = silt_rendered(spark, tables["clone"], columns)
    assert tables["ref"][3]["num_rows"] == len([i for i in range(200) if i % 7 and i % 5])
    assert tables["ref"][3]["rows"] == ours
    assert rendered(read_delta_rs(tables["clone"]), columns) == ours


def test_delta_rs_reads_a_clone(spark, tables):
    columns = ["id", "k"]
    ours = silt_rendered(spark, tables["plain_clone"], columns)
    assert len(ours) == 60
    assert rendered(read_delta_rs(tables["plain_clone"]), columns) == ours
