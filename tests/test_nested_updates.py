"""UPDATE and MERGE set fields of structs (`SET s.x = …`), as Delta Lake does: the other fields kept, a NULL
struct given the assigned fields, deeper structs, several fields at once; with column mapping, generated
columns and CHECK constraints over the field, the change data feed and deletion vectors. A field inside an
array or map, and two assignments to one field, are refused with Delta Lake's error classes."""
import pytest

import silt
from test_writes import commits, raises_silt

COLUMNS = "id INT, s STRUCT<x: INT, y: STRING, z: STRUCT<a: INT, b: INT>>, arr ARRAY<STRUCT<x: INT>>, " \
          "m MAP<STRING, STRUCT<x: INT>>"
ROWS = "(1, named_struct('x', 1, 'y', 'a', 'z', named_struct('a', 1, 'b', 2)), array(named_struct('x', 1)), " \
       "map('k', named_struct('x', 1))), (2, NULL, NULL, NULL)"
# Run on both engines, in order; the rows after them are compared.
STATEMENTS = [
    "UPDATE {t} SET s.x = 10, s.z.b = 20",
    "UPDATE {t} SET s.y = upper(s.y) WHERE id = 1",
    "MERGE INTO {t} t USING (SELECT 1 AS id, 99 AS v) src ON t.id = src.id "
    "WHEN MATCHED THEN UPDATE SET t.s.y = 'merged', t.s.z.a = src.v",
    "MERGE INTO {t} t USING (SELECT 2 AS id) src ON t.id = src.id "
    "WHEN MATCHED THEN UPDATE SET t.s.z = named_struct('a', 7, 'b', 8)",
]


def create(spark, fmt, path, properties=""):
    spark.sql(f"CREATE TABLE {fmt}.`{path}` ({COLUMNS}) USING {fmt} {properties}")
    spark.sql(f"INSERT INTO {fmt}.`{path}` VALUES {ROWS}")


def rows(spark, path):
    return [tuple(map(str, r)) for r in spark.read.format("silt").load(path).orderBy("id").collect()]


@pytest.mark.parametrize("properties", [
    "", "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
    "TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.enableChangeDataFeed' = 'true')"],
    ids=["copy-on-write", "deletion-vectors", "column-mapping-cdf"])
def test_nested_fields_are_set_as_delta_lake_sets_them(spark, tmp_path, properties):
    p = str(tmp_path / "t")
    create(spark, "silt", p, properties)
    for statement in STATEMENTS:
        spark.sql(statement.format(t=f"silt.`{p}`"))
    assert rows(spark, p) == [
        ("1", "Row(x=10, y='merged', z=Row(a=99, b=20))", "[Row(x=1)]", "{'k': Row(x=1)}"),
        ("2", "Row(x=10, y=None, z=Row(a=7, b=8))", "None", "None")]
    if "ChangeDataFeed" in properties:
        feed = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", 2).load(p)
        post = [str(r.s) for r in feed.where("_change_type = 'update_postimage' AND _commit_version = 2")
                .orderBy("id").collect()]
        assert post == ["Row(x=10, y='a', z=Row(a=1, b=20))", "Row(x=10, y=None, z=Row(a=None, b=20))"]


@pytest.mark.full  # second tier: a reference JVM's 50 s
@pytest.mark.reference
def test_the_reference_sets_the_same_rows(spark, tmp_path):
    from test_interop import run_reference
    ref, mine = str(tmp_path / "ref"), str(tmp_path / "silt")
    res = run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{ref}` ({COLUMNS}) USING delta", f"INSERT INTO delta.`{ref}` VALUES {ROWS}"] +
        [s.format(t=f"delta.`{ref}`") for s in STATEMENTS]}])
    assert res[0]["ok"], res[0].get("error")
    create(spark, "silt", mine)
    for statement in STATEMENTS:
        spark.sql(statement.format(t=f"silt.`{mine}`"))
    assert rows(spark, mine) == rows(spark, ref)


def test_generated_columns_and_constraints_over_a_nested_field(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, s STRUCT<x: INT, y: INT>, "
              "twice INT GENERATED ALWAYS AS (s.x * 2)) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` (id, s) VALUES (1, named_struct('x', 1, 'y', 1))")
    spark.sql(f"ALTER TABLE silt.`{p}` ADD CONSTRAINT small CHECK (s.x < 100)")
    spark.sql(f"UPDATE silt.`{p}` SET s.x = 21")
    assert [(r.s.x, r.s.y, r.twice) for r in spark.read.format("silt").load(p).collect()] == [(21, 1, 42)]
    before = commits(p)
    msg = raises_silt(silt.ConstraintViolationException, lambda: spark.sql(f"UPDATE silt.`{p}` SET s.x = 500"))
    assert "small" in msg
    assert commits(p) == before


@pytest.mark.parametrize("assignment, error_class", [
    ("arr.x = 5", "DELTA_UNSUPPORTED_NESTED_FIELD_IN_UPDATE"),
    ("m.k.x = 5", "DELTA_UNSUPPORTED_NESTED_FIELD_IN_UPDATE"),
    ("s.x = 1, s = named_struct('x', 1, 'y', 'a', 'z', named_struct('a', 1, 'b', 2))", "DELTA_CONFLICT_SET_COLUMN"),
    ("s.x = 1, s.x = 2", "DELTA_CONFLICT_SET_COLUMN"),
    ("s.z = named_struct('a', 1, 'b', 2), s.z.a = 3", "DELTA_CONFLICT_SET_COLUMN")])
def test_what_delta_lake_refuses_is_refused(spark, tmp_path, assignment, error_class):
    p = str(tmp_path / "t")
    create(spark, "silt", p)
    before = commits(p)
    with pytest.raises(Exception) as info:
        spark.sql(f"UPDATE silt.`{p}` SET {assignment}")
    assert info.value.getCondition() == error_class
    assert commits(p) == before
