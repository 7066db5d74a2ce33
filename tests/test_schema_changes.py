"""Schema changes: ALTER TABLE … ADD COLUMNS (top level and nested, FIRST / AFTER), as Delta Lake does them."""
import json

import pytest

import silt


def test_add_columns_last_first_and_after_with_comments(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS add_cols")
    spark.sql(f"CREATE TABLE add_cols (id BIGINT, day INT) USING silt PARTITIONED BY (day) LOCATION '{tmp_path / 't'}'")
    spark.sql("INSERT INTO add_cols VALUES (1, 1), (2, 2)")
    spark.sql("ALTER TABLE add_cols ADD COLUMNS (note STRING COMMENT 'free text', score DOUBLE)")
    spark.sql("ALTER TABLE add_cols ADD COLUMN first_col INT FIRST")
    spark.sql("ALTER TABLE add_cols ADD COLUMN after_id BOOLEAN AFTER id")
    t = spark.table("add_cols")
    assert t.columns == ["first_col", "id", "after_id", "day", "note", "score"]
    assert [f.metadata.get("comment") for f in t.schema.fields if f.name == "note"] == ["free text"]
    # rows written before the change read null in the new columns; new rows carry them
    spark.sql("INSERT INTO add_cols (first_col, id, after_id, day, note, score) VALUES (9, 3, true, 1, 'n', 0.5)")
    assert sorted((tuple(r) for r in spark.table("add_cols").collect()), key=lambda r: r[1]) == [
        (None, 1, None, 1, None, None), (None, 2, None, 2, None, None), (9, 3, True, 1, "n", 0.5)]
    ops = spark.sql("DESCRIBE HISTORY add_cols").collect()
    add = [r for r in ops if r["operation"] == "ADD COLUMNS"]
    assert len(add) == 3
    columns = json.loads(add[-1]["operationParameters"]["columns"])
    # as Delta Lake 4.4 records them
    assert columns == [{"column": {"name": "note", "type": "string", "nullable": True, "metadata": {"comment": "free text"}}},
                       {"column": {"name": "score", "type": "double", "nullable": True, "metadata": {}}}]
    assert json.loads(add[0]["operationParameters"]["columns"])[0]["position"] == "AFTER id"
    # the catalog shows the same schema (partition column kept as a partition column)
    assert spark.sql("DESCRIBE DETAIL add_cols").first()["partitionColumns"] == ["day"]


def test_add_a_field_to_a_struct_by_path(spark, tmp_path):
    p = str(tmp_path / "nested")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, s STRUCT<a: INT, b: STRING>, arr ARRAY<STRUCT<x: INT>>) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, named_struct('a', 1, 'b', 'x'), array(named_struct('x', 5)))")
    spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMNS (s.c DOUBLE AFTER a, arr.element.y STRING)")
    df = spark.read.format("silt").load(p)
    assert df.schema["s"].dataType.fieldNames() == ["a", "c", "b"]
    assert df.schema["arr"].dataType.elementType.fieldNames() == ["x", "y"]
    r = df.first()
    assert (r["s"]["a"], r["s"]["c"], r["s"]["b"], r["arr"][0]["x"], r["arr"][0]["y"]) == (1, None, "x", 5, None)


def test_what_delta_does_not_allow_is_refused_and_nothing_is_committed(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    for ddl, message in [
        ("ADD COLUMNS (x INT NOT NULL)", "a new column must be nullable"),
        ("ADD COLUMNS (ID STRING)", "already exists"),
        ("ADD COLUMNS (nope.x INT)", "nope"),
        ("ADD COLUMNS (id.x INT)", "id"),
        ("ADD COLUMN x INT AFTER nope", "FIELD_NOT_FOUND|nope"),  # Spark's analyzer refuses these three
    ]:
        with pytest.raises(Exception, match=message):
            silt.errors.reraise(lambda: spark.sql(f"ALTER TABLE silt.`{p}` {ddl}"))
    assert spark.sql(f"DESCRIBE HISTORY '{p}'").count() == 1
    assert spark.read.format("silt").load(p).columns == ["id"]


def test_delta_rs_reads_the_added_column(spark, tmp_path):
    deltalake = pytest.importorskip("deltalake")
    p = str(tmp_path / "t")
    spark.range(2).write.format("silt").save(p)
    spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMNS (tag STRING)")
    spark.createDataFrame([(5, "t")], "id long, tag string").write.format("silt").mode("append").save(p)
    got = sorted((r["id"], r["tag"]) for r in deltalake.DeltaTable(p).to_pyarrow_table().to_pylist())
    assert got == [(0, None), (1, None), (5, "t")]


def test_alter_column_comment_nullability_and_position(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT NOT NULL, v STRING, w INT) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'x', 1), (2, NULL, 2)")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN id DROP NOT NULL")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v COMMENT 'hello'")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN w FIRST")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v AFTER w")
    schema = spark.read.format("silt").load(p).schema
    assert schema.fieldNames() == ["w", "v", "id"]
    assert schema["v"].metadata == {"comment": "hello"}
    spark.createDataFrame([(3, None, None)], "w int, v string, id long").write.format("silt").mode("append").save(p)
    hist = spark.sql(f"DESCRIBE HISTORY '{p}'").collect()
    changes = [r["operationParameters"] for r in hist if r["operation"] == "CHANGE COLUMN"]
    assert len(changes) == 4
    assert changes[0]["position"] == "AFTER w" and json.loads(changes[0]["column"])["metadata"] == {"comment": "hello"}
    assert json.loads(changes[3]["column"]) == {"name": "id", "type": "long", "nullable": True, "metadata": {}}
    # as in Delta Lake (Spark's analyzer says so first), a nullable column cannot become NOT NULL
    with pytest.raises(Exception, match="Cannot change nullable column to non-nullable: w"):
        spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN w SET NOT NULL")
    # what needs more than Silt has is refused by name
    for ddl, message in [("ALTER COLUMN w TYPE BIGINT", "its type cannot change from int to bigint"),
                         ("RENAME COLUMN w TO w2", "RENAME COLUMN w needs column mapping.*'delta.columnMapping.mode' = 'name'"),
                         ("DROP COLUMN w", "DROP COLUMN needs column mapping")]:
        with pytest.raises(Exception, match=message):
            silt.errors.reraise(lambda: spark.sql(f"ALTER TABLE silt.`{p}` {ddl}"))


def test_a_new_check_constraint_conflicts_with_a_concurrent_append_even_under_write_serializable(spark, tmp_path):
    from conftest import concurrently
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, v STRING) USING silt "
              "TBLPROPERTIES ('delta.isolationLevel' = 'WriteSerializable')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a')")
    # the constraint checked the rows it read; the appended row, which breaks it, was never checked
    error = concurrently(spark, p, lambda: spark.sql(f"ALTER TABLE silt.`{p}` ADD CONSTRAINT v_set CHECK (v IS NOT NULL)"),
                         lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (2, NULL)"))
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert "checked against a new constraint" in str(error)
    assert "delta.constraints.v_set" not in spark.sql(f"DESCRIBE DETAIL '{p}'").first()["properties"]


def test_merge_with_schema_evolution_is_refused_rather_than_dropping_the_new_columns(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).selectExpr("id", "'a' AS v").write.format("silt").save(p)
    merge = (f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 1L AS id, 'b' AS v, 'new' AS extra) s "
             "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    with pytest.raises(silt.UnsupportedOptionException, match="WITH SCHEMA EVOLUTION .* ADD COLUMNS"):
        silt.errors.reraise(lambda: spark.sql(merge))
    assert spark.sql(f"DESCRIBE HISTORY '{p}'").count() == 1
    # the way that works today: add the column, then merge
    spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMNS (extra STRING)")
    spark.sql(merge.replace("WITH SCHEMA EVOLUTION ", ""))
    assert spark.read.format("silt").load(p).where("id = 1").first()["extra"] == "new"
