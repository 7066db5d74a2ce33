"""The write semantics against the peers: Silt and the reference Delta Lake each do the same dynamic
partition overwrite, CREATE OR REPLACE, idempotent append, constrained writes and dataChange=false
rewrite; each engine (and delta-rs) reads the other's tables with the same rows. Silt writes a table
the reference engine made with a CHECK constraint, honouring the constraint."""
import pytest
from pyspark.sql import functions as F

import silt
from conftest import load_canon
from test_interop import read_deltalake, run_reference
from test_write_semantics import raises_silt

pytestmark = pytest.mark.full  # second tier: make test-full

THREE_PARTITIONS = "SELECT CAST(id % 3 AS INT) AS p, id FROM range(30)"
ONE_ROW_OF_PARTITION_1 = "SELECT 1 AS p, 100L AS id"


def silt_ops(spark, t):
    """The operations, done by Silt on its tables `t[name]`."""
    spark.sql(THREE_PARTITIONS).write.format("silt").partitionBy("p").save(t["dynamic"])
    spark.sql(ONE_ROW_OF_PARTITION_1).write.format("silt").mode("overwrite") \
        .option("partitionOverwriteMode", "dynamic").save(t["dynamic"])
    spark.sql(f"CREATE TABLE silt.`{t['replace']}` USING silt AS SELECT id FROM range(5)")
    spark.sql(f"CREATE OR REPLACE TABLE silt.`{t['replace']}` USING silt PARTITIONED BY (k) "
              "AS SELECT id, CAST(id % 2 AS INT) AS k, 'r' AS s FROM range(7)")
    for _ in range(3):
        spark.range(4).write.format("silt").mode("append").option("txnAppId", "app") \
            .option("txnVersion", 1).save(t["txn"])
    spark.sql(f"CREATE TABLE silt.`{t['constrained']}` (id BIGINT NOT NULL, v INT) USING silt")
    spark.sql(f"INSERT INTO silt.`{t['constrained']}` VALUES (1, 10), (2, 20)")
    spark.sql(f"ALTER TABLE silt.`{t['constrained']}` ADD CONSTRAINT small CHECK (v < 100)")
    spark.sql(f"INSERT INTO silt.`{t['constrained']}` VALUES (3, 30)")
    for i in range(4):
        spark.range(i * 10, i * 10 + 10).write.format("silt").mode("append").save(t["rewrite"])
    spark.read.format("silt").load(t["rewrite"]).repartition(1).write.format("silt").mode("overwrite") \
        .option("dataChange", "false").save(t["rewrite"])


def reference_ops(r):
    """The same operations, for the reference Delta Lake on its tables `r[name]`."""
    ops = [
        {"op": "write", "path": r["dynamic"], "query": THREE_PARTITIONS, "partitionBy": ["p"]},
        {"op": "write", "path": r["dynamic"], "query": ONE_ROW_OF_PARTITION_1, "mode": "overwrite",
         "options": {"partitionOverwriteMode": "dynamic"}},
        {"op": "sql", "statements": [
            f"CREATE TABLE delta.`{r['replace']}` USING delta AS SELECT id FROM range(5)",
            f"CREATE OR REPLACE TABLE delta.`{r['replace']}` USING delta PARTITIONED BY (k) "
            "AS SELECT id, CAST(id % 2 AS INT) AS k, 'r' AS s FROM range(7)",
            f"CREATE TABLE delta.`{r['constrained']}` (id BIGINT NOT NULL, v INT) USING delta",
            f"INSERT INTO delta.`{r['constrained']}` VALUES (1, 10), (2, 20)",
            f"ALTER TABLE delta.`{r['constrained']}` ADD CONSTRAINT small CHECK (v < 100)",
            f"INSERT INTO delta.`{r['constrained']}` VALUES (3, 30)"]},
    ]
    ops += [{"op": "write", "path": r["txn"], "query": "SELECT id FROM range(4)",
             "options": {"txnAppId": "app", "txnVersion": "1"}}] * 3
    ops += [{"op": "write", "path": r["rewrite"], "query": f"SELECT id FROM range({i * 10}, {i * 10 + 10})"}
            for i in range(4)]
    ops += [{"op": "write", "path": r["rewrite"], "mode": "overwrite", "options": {"dataChange": "false"},
             "query": f"SELECT /*+ REPARTITION(1) */ * FROM delta.`{r['rewrite']}`"}]
    return ops


NAMES = ["dynamic", "replace", "txn", "constrained", "rewrite"]


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("interop_writes")
    ours = {n: str(root / f"silt_{n}") for n in NAMES}
    theirs = {n: str(root / f"ref_{n}") for n in NAMES}
    silt_ops(spark, ours)
    reads = [{"op": "read", "path": ours[n]} for n in NAMES] + [{"op": "read", "path": theirs[n]} for n in NAMES]
    results = run_reference(reference_ops(theirs) + reads)
    failed = [r for r in results if not r["ok"]]
    assert not failed, failed[0]
    by_read = {r["op"]["path"]: r for r in results if r["op"]["op"] == "read"}
    return {"silt": ours, "ref": theirs, "reads": by_read}


def rendered(table, columns):
    return load_canon().render_table(table, columns)[0]


@pytest.mark.parametrize("name", NAMES)
def test_same_rows_in_every_engine(spark, tables, name):
    ours, theirs = tables["silt"][name], tables["ref"][name]
    ref_reads_ours, ref_reads_theirs = tables["reads"][ours], tables["reads"][theirs]
    columns = ref_reads_theirs["columns"]
    assert ref_reads_ours["columns"] == columns
    silt_reads_ours = rendered(load_canon().arrow_table(spark.read.format("silt").load(ours)), columns)
    silt_reads_theirs = rendered(load_canon().arrow_table(spark.read.format("silt").load(theirs)), columns)
    # the reference engine's result is the yardstick: Silt's operation gives the same rows,
    # and every engine reads both tables the same
    assert silt_reads_ours == ref_reads_theirs["rows"]
    assert ref_reads_ours["rows"] == ref_reads_theirs["rows"]
    assert silt_reads_theirs == ref_reads_theirs["rows"]
    assert rendered(read_deltalake(ours), columns) == ref_reads_theirs["rows"]


def test_expected_row_counts(tables):
    counts = {n: tables["reads"][tables["ref"][n]]["num_rows"] for n in NAMES}
    assert counts == {"dynamic": 21, "replace": 7, "txn": 4, "constrained": 3, "rewrite": 40}


def test_silt_honours_a_check_constraint_the_reference_engine_wrote(spark, tables):
    theirs = tables["ref"]["constrained"]
    spark.createDataFrame([(4, 40)], "id long, v int").write.format("silt").mode("append").save(theirs)
    msg = raises_silt(silt.ConstraintViolationException, lambda: spark.createDataFrame(
        [(5, 500)], "id long, v int").write.format("silt").mode("append").save(theirs))
    assert "small" in msg
    raises_silt(silt.ConstraintViolationException, lambda: spark.createDataFrame(
        [(None, 5)], "id long, v int").write.format("silt").mode("append").save(theirs))
    assert sorted(r.id for r in spark.read.format("silt").load(theirs).collect()) == [1, 2, 3, 4]
    assert read_deltalake(theirs).num_rows == 4
