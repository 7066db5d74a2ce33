"""NOT NULL, CHECK constraints and column invariants: enforced on every write path, nothing committed on a violation."""
import json
from pathlib import Path

import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StructField, StructType

import silt
from test_write_semantics import raises_silt, state


@pytest.fixture()
def table(spark):
    spark.sql("CREATE TABLE nn (id INT NOT NULL, s STRUCT<a: INT NOT NULL, b: INT>, v INT) USING silt")
    spark.sql("INSERT INTO nn VALUES (1, named_struct('a', 1, 'b', 2), 10)")
    location = spark.sql("DESCRIBE DETAIL nn").first()["location"].replace("file:", "")
    yield location
    spark.sql("DROP TABLE IF EXISTS nn")


def violation(spark, location, statement_or_fn):
    """Runs a write expected to violate a constraint; returns the message, checks that nothing was committed."""
    before = state(location)
    run = statement_or_fn if callable(statement_or_fn) else (lambda: spark.sql(statement_or_fn).collect())
    msg = raises_silt(silt.ConstraintViolationException, run)
    assert state(location) == before
    return msg


def test_not_null_on_every_write_path(spark, table):
    msg = violation(spark, table, "INSERT INTO nn VALUES (NULL, named_struct('a', 1, 'b', 2), 1)")
    assert "NOT NULL" in msg and "column id" in msg
    msg = violation(spark, table, "INSERT INTO nn VALUES (2, named_struct('a', NULL, 'b', 2), 1)")
    assert "column s.a" in msg
    # as in Delta, a null parent struct violates its NOT NULL field
    assert "column s.a" in violation(spark, table, "INSERT INTO nn VALUES (2, NULL, 1)")
    bad = spark.createDataFrame([(None, (1, 2), 3)], "id int, s struct<a:int,b:int>, v int")
    assert "column id" in violation(spark, table, lambda: bad.write.format("silt").mode("append").saveAsTable("nn"))
    assert "column id" in violation(spark, table, lambda: bad.write.format("silt").mode("append").save(table))
    assert "column id" in violation(spark, table, lambda: bad.write.format("silt").mode("overwrite").save(table))
    assert "column id" in violation(spark, table, "UPDATE nn SET id = NULL WHERE id = 1")
    assert "column id" in violation(spark, table, "MERGE INTO nn t USING (SELECT 5 AS k) s ON t.id = s.k "
                                                  "WHEN NOT MATCHED THEN INSERT (id, s, v) VALUES (NULL, named_struct('a', 1, 'b', 1), 0)")
    spark.sql("INSERT INTO nn VALUES (2, named_struct('a', 5, 'b', NULL), NULL)")
    assert spark.table("nn").count() == 2
    schema = spark.read.format("silt").load(table).schema
    assert not schema["id"].nullable and schema["v"].nullable and not schema["s"].dataType["a"].nullable


def test_not_null_with_deletion_vectors_update(spark, tmp_path):
    spark.sql("CREATE TABLE nndv (id INT NOT NULL, v INT) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    try:
        spark.sql("INSERT INTO nndv VALUES (1, 1), (2, 2)")
        location = spark.sql("DESCRIBE DETAIL nndv").first()["location"].replace("file:", "")
        assert "column id" in violation(spark, location, "UPDATE nndv SET id = NULL WHERE v = 2")
        assert sorted(r.id for r in spark.table("nndv").collect()) == [1, 2]
    finally:
        spark.sql("DROP TABLE nndv")


def test_check_constraints(spark, table):
    before = state(table)
    msg = raises_silt(silt.ConstraintViolationException,
                      lambda: spark.sql("ALTER TABLE nn ADD CONSTRAINT big CHECK (id > 10)").collect())
    assert "1 row(s)" in msg and "big" in msg and "id: 1" in msg
    assert state(table) == before
    spark.sql("ALTER TABLE nn ADD CONSTRAINT Positive CHECK (id > 0 AND (v IS NULL OR v < 100))")
    detail = spark.sql("DESCRIBE DETAIL nn").first()
    assert detail["properties"]["delta.constraints.positive"] == "id > 0 AND (v IS NULL OR v < 100)"
    assert (detail["minReaderVersion"], detail["minWriterVersion"]) == (1, 3)
    msg = violation(spark, table, "INSERT INTO nn VALUES (-1, named_struct('a', 1, 'b', 2), 1)")
    assert "CHECK constraint positive" in msg and "id: -1" in msg
    violation(spark, table, "INSERT INTO nn VALUES (3, named_struct('a', 1, 'b', 2), 500)")
    violation(spark, table, "UPDATE nn SET v = 1000")
    violation(spark, table, lambda: spark.createDataFrame([(-7, (1, 2), 0)], "id int, s struct<a:int,b:int>, v int")
              .write.format("silt").mode("append").save(table))
    spark.sql("INSERT INTO nn VALUES (3, named_struct('a', 1, 'b', 2), 99)")
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql("ALTER TABLE nn ADD CONSTRAINT positive CHECK (id > 1)").collect())
    assert "already exists" in msg
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql("ALTER TABLE nn SET TBLPROPERTIES ('delta.constraints.x' = 'id < 5')"))
    assert "ADD CONSTRAINT" in msg
    spark.sql("ALTER TABLE nn DROP CONSTRAINT positive")
    spark.sql("INSERT INTO nn VALUES (-1, named_struct('a', 1, 'b', 2), 1000)")
    raises_silt(silt.InvalidTableOperationException,
                lambda: spark.sql("ALTER TABLE nn DROP CONSTRAINT positive").collect())
    spark.sql("ALTER TABLE nn DROP CONSTRAINT IF EXISTS positive")
    ops = [(r["operation"], r["operationParameters"].get("name")) for r in
           spark.sql("DESCRIBE HISTORY nn").orderBy("version").collect()]
    assert ("ADD CONSTRAINT", "positive") in ops and ops[-1] == ("DROP CONSTRAINT", "positive")


def test_check_constraint_null_violates(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    spark.sql(f"ALTER TABLE silt.`{p}` ADD CONSTRAINT pos CHECK (id >= 0)")
    msg = violation(spark, p, lambda: spark.createDataFrame([(None,)], "id long").write.format("silt")
                    .mode("append").save(p))
    assert "id: null" in msg


def test_column_invariants_are_enforced(spark, tmp_path):
    p = str(tmp_path / "t")
    meta = {"delta.invariants": json.dumps({"expression": {"expression": "x > 3"}})}
    schema = StructType([StructField("x", IntegerType(), True, meta), StructField("y", LongType())])
    spark.createDataFrame([(4, 1)], schema).write.format("silt").save(p)
    protocol = [json.loads(line)["protocol"] for line in
                (Path(p) / "_delta_log" / "00000000000000000000.json").read_text().splitlines() if "protocol" in line][0]
    assert protocol["minWriterVersion"] == 2
    msg = violation(spark, p, lambda: spark.createDataFrame([(1, 2)], "x int, y long").write.format("silt")
                    .mode("append").save(p))
    assert "invariant (x > 3)" in msg and "x: 1" in msg
    spark.createDataFrame([(9, 2)], "x int, y long").write.format("silt").mode("append").save(p)
    assert spark.read.format("silt").load(p).count() == 2
