"""Schema changes: ALTER TABLE … ADD COLUMNS (top level and nested, FIRST / AFTER), as Delta Lake does them."""
import glob
import json
import os

import pytest

import silt
from conftest import needs_spark, needs_spark_4


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
    # what needs more than Silt has is refused by name
    # (Spark 3.5: never, its Parquet reader cannot widen INT to BIGINT)
    for ddl, message in [("ALTER COLUMN w TYPE BIGINT",
                          "from INT to BIGINT (unless type widening is on.*delta.enableTypeWidening|on this Spark)"),
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


def log_versions(path):
    return sorted(int(os.path.basename(f)[:20]) for f in glob.glob(os.path.join(path, "_delta_log", "*.json")))


@pytest.mark.parametrize("mapping", ["none", "name"])
def test_merge_with_schema_evolution_adds_the_source_columns_in_its_own_commit(spark, tmp_path, mapping):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, v STRING) USING silt TBLPROPERTIES "
              f"('delta.enableDeletionVectors' = 'true', 'delta.columnMapping.mode' = '{mapping}')")
    spark.range(0, 20).selectExpr("id", "CONCAT('a', id) AS v").coalesce(1).write.format("silt").mode("append").save(p)
    merge = (f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT * FROM VALUES (2L, 'B', 20, 'x'), "
             "(30L, 'c', 30, 'y') AS s(id, v, extra, note)) s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    assert spark.sql(merge).first()["num_affected_rows"] == 2
    df = spark.read.format("silt").load(p)
    assert df.columns == ["id", "v", "extra", "note"]
    got = {r.id: tuple(r) for r in df.collect()}
    assert len(got) == 21 and got[1] == (1, "a1", None, None)
    assert got[2] == (2, "B", 20, "x") and got[30] == (30, "c", 30, "y")
    # one commit: the new schema and the rows together, the changed row marked in a deletion vector
    assert log_versions(p) == [0, 1, 2]
    actions = [json.loads(line) for line in open(os.path.join(p, "_delta_log", f"{2:020d}.json"))]
    assert any("metaData" in a for a in actions) and any(a.get("add", {}).get("deletionVector") for a in actions)
    assert next(a["commitInfo"] for a in actions if "commitInfo" in a)["operation"] == "MERGE"
    if mapping == "name":
        fields = json.loads(next(a["metaData"] for a in actions if "metaData" in a)["schemaString"])["fields"]
        assert [f["metadata"]["delta.columnMapping.id"] for f in fields] == [1, 2, 3, 4]


def test_merge_with_schema_evolution_adds_new_fields_of_structs(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRUCT<a: INT>) USING silt TBLPROPERTIES "
              "('delta.columnMapping.mode' = 'name', 'delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, named_struct('a', 1)), (2, named_struct('a', 2))")
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT * FROM VALUES "
              "(2L, named_struct('a', 20, 'b', 'x')), (3L, named_struct('a', 30, 'b', 'y')) AS s(id, s)) s "
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    df = spark.read.format("silt").load(p)
    assert df.schema["s"].dataType.fieldNames() == ["a", "b"]
    assert sorted(tuple(r) for r in df.collect()) == [(1, (1, None)), (2, (20, "x")), (3, (30, "y"))]
    assert log_versions(p) == [0, 1, 2]
    fields = json.loads(next(json.loads(line)["metaData"] for line in open(os.path.join(p, "_delta_log", f"{2:020d}.json"))
                             if "metaData" in line)["schemaString"])["fields"]
    nested = fields[1]["type"]["fields"]
    assert [f["metadata"]["delta.columnMapping.id"] for f in nested] == [3, 4]
    # a source struct with the fields in another order (and a new one) is matched by name, not by position
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 1L AS id, "
              "named_struct('b', 'z', 'a', 9, 'c', 1) AS s) src ON t.id = src.id WHEN MATCHED THEN UPDATE SET *")
    assert spark.read.format("silt").load(p).where("id = 1").first()["s"] == (9, "z", 1)
    # Silt's MERGE sets whole columns only: a new field assigned by itself is refused, and adds nothing
    with pytest.raises(silt.UnsupportedOptionException, match="cannot add s.d by itself: assign the whole struct s"):
        silt.errors.reraise(lambda: spark.sql(
            f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 1L AS id, named_struct('d', 7) AS s) src "
            "ON t.id = src.id WHEN MATCHED THEN UPDATE SET s.d = src.s.d"))
    assert log_versions(p) == [0, 1, 2, 3]


def test_a_failing_merge_with_schema_evolution_adds_no_column(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).selectExpr("id", "'a' AS v").write.format("silt").save(p)
    merge = (f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT * FROM VALUES (1L, 'b', 'n1'), "
             "(1L, 'c', 'n2') AS s(id, v, extra)) s ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")
    with pytest.raises(silt.InvalidTableOperationException, match="matches 2 source rows"):
        silt.errors.reraise(lambda: spark.sql(merge))
    assert log_versions(p) == [0] and spark.read.format("silt").load(p).columns == ["id", "v"]
    # a MERGE that changes no row still adds the columns, as its statement asks
    spark.sql(merge.replace("(1L, 'c', 'n2')", "(7L, 'c', 'n2')").replace("(1L, 'b', 'n1')", "(8L, 'b', 'n1')"))
    assert log_versions(p) == [0, 1] and spark.read.format("silt").load(p).columns == ["id", "v", "extra"]
    # an explicit assignment to a new column adds it; a nested path is not added (Spark names it)
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 0L AS id, 5 AS score) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET score = s.score")
    assert spark.read.format("silt").load(p).where("id = 0").first()["score"] == 5
    with pytest.raises(Exception, match="nested"):
        spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 1L AS id) s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET t.nested.x = 1")
    assert log_versions(p) == [0, 1, 2]
    # with no new column, nothing but the MERGE's rows is committed
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 0L AS id, 6 AS score) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET *")
    assert not any("metaData" in json.loads(line) for line in open(os.path.join(p, "_delta_log", f"{3:020d}.json")))


def test_merge_with_schema_evolution_into_another_providers_table_is_not_run_without_it(spark, tmp_path):
    spark.sql("DROP TABLE IF EXISTS evolving_parquet")
    spark.sql("CREATE TABLE evolving_parquet (id BIGINT) USING parquet")
    with pytest.raises(Exception) as info:
        spark.sql("MERGE WITH SCHEMA EVOLUTION INTO evolving_parquet t USING (SELECT 1L AS id, 'x' AS extra) s "
                  "ON t.id = s.id WHEN NOT MATCHED THEN INSERT *")
    if spark.version.startswith(("3.", "4.0.")):  # Spark's MERGE has no evolution there: Silt names the clause
        assert "Silt evolves the schemas of Silt tables only" in str(info.value)
    assert spark.table("evolving_parquet").columns == ["id"] and spark.table("evolving_parquet").count() == 0
    spark.sql("DROP TABLE evolving_parquet")


def test_the_auto_merge_setting_evolves_merges_and_writes(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).selectExpr("id", "'a' AS v").write.format("silt").save(p)
    spark.conf.set("spark.silt.schema.autoMerge.enabled", "true")
    try:
        spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 1L AS id, 'b' AS v, 'new' AS extra) s "
                  "ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")
        assert spark.read.format("silt").load(p).where("id = 1").first()["extra"] == "new"
        spark.range(5, 6).selectExpr("id", "'e' AS v", "'x' AS extra", "5 AS more").write.format("silt") \
            .mode("append").save(p)
        assert spark.read.format("silt").load(p).columns == ["id", "v", "extra", "more"]
        # an explicit option wins over the setting
        with pytest.raises(silt.SchemaMismatchException, match="mergeSchema"):
            silt.errors.reraise(lambda: spark.range(1).selectExpr("id", "1 AS other").write.format("silt")
                                .mode("append").option("mergeSchema", "false").save(p))
    finally:
        spark.conf.unset("spark.silt.schema.autoMerge.enabled")
    # without it, a MERGE keeps the target's columns (as in Delta Lake) and a write with new columns fails
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 2L AS id, 'c' AS v, 'x' AS extra, 1 AS more, 'z' AS zzz) s "
              "ON t.id = s.id WHEN MATCHED THEN UPDATE SET *")
    assert spark.read.format("silt").load(p).columns == ["id", "v", "extra", "more"]


# INSERTs with more columns than the table, under auto-merge (by position, BY NAME, a column list, an overwrite):
# each statement's outcome, then the rows and columns; run by Silt and by the reference.
INSERT_EVOLUTION = """
out = []
spark.conf.set("spark.databricks.delta.schema.autoMerge.enabled", "true")
spark.sql(f"CREATE TABLE delta.`{path}` (id INT, v STRING) USING delta")
for statement in [f"INSERT INTO delta.`{path}` VALUES (1, 'a', 2)",
                  f"INSERT INTO delta.`{path}` SELECT 2 AS id, 'b' AS v, 3 AS extra",
                  f"INSERT INTO delta.`{path}` (id, v, extra2) VALUES (3, 'c', 4)",
                  f"INSERT INTO delta.`{path}` BY NAME SELECT 5 AS extra3, 4 AS id",
                  f"INSERT OVERWRITE delta.`{path}` SELECT 9, 'z', 1, 2, 'w' AS last"]:
    try:
        spark.sql(statement)
        out.append("ok")
    except Exception as e:
        out.append(type(e).__name__)
out.append(sorted(map(str, spark.read.format("delta").load(path).collect())))
out.append(spark.read.format("delta").load(path).columns)
spark.conf.unset("spark.databricks.delta.schema.autoMerge.enabled")
result = out
"""
INSERT_EVOLVED = ["ok", "ok", "AnalysisException", "ok", "ok", ["Row(id=9, v='z', col3=1, extra3=2, last='w')"],
                  ["id", "v", "col3", "extra3", "last"]]


@needs_spark_4("INSERT … BY NAME into a Silt table (Spark 3.5 refuses it)")
def test_an_insert_adds_the_querys_new_columns_under_auto_merge(spark, tmp_path):
    """As Delta Lake: by position the columns past the table's (under the query's names, col3 for VALUES), BY NAME
    those the table lacks; each added in the commit of the rows. Without auto-merge, refused and nothing committed."""
    p = str(tmp_path / "t")
    scope = {"spark": spark, "path": p}
    exec(INSERT_EVOLUTION, scope)
    assert scope["result"] == INSERT_EVOLVED
    assert log_versions(p) == [0, 1, 2, 3, 4]
    with pytest.raises(Exception, match="too many data columns"):
        spark.sql(f"INSERT INTO delta.`{p}` VALUES (1, 'a', 2, 3, 'x', 'more')")
    assert log_versions(p) == [0, 1, 2, 3, 4]
    # a catalog table's entry follows (it holds columns only if the table was replaced: not this one)
    spark.sql("CREATE TABLE evolving_insert (id INT) USING delta")
    spark.conf.set("spark.databricks.delta.schema.autoMerge.enabled", "true")
    try:
        spark.sql("INSERT INTO evolving_insert SELECT 1, 'one' AS name")
    finally:
        spark.conf.unset("spark.databricks.delta.schema.autoMerge.enabled")
    assert [tuple(r) for r in spark.table("evolving_insert").collect()] == [(1, "one")]
    spark.sql("DROP TABLE evolving_insert")


@pytest.mark.full  # second tier: the reference's process
@pytest.mark.reference
def test_the_reference_adds_the_same_columns_to_an_insert(tmp_path):
    from test_interop import run_reference
    [res] = run_reference([{"op": "api", "code": f"path = {str(tmp_path / 't')!r}\n" + INSERT_EVOLUTION}])
    assert res["ok"], res.get("error")
    assert res["result"] == repr(INSERT_EVOLVED)


def test_set_not_null_checks_the_rows_first(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT, s STRUCT<a: INT>, v STRING) USING silt "
              "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, named_struct('a', 1), 'x'), (2, named_struct('a', 2), NULL)")
    with pytest.raises(silt.ConstraintViolationException, match="1 row.* have NULL in v"):
        silt.errors.reraise(lambda: spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v SET NOT NULL"))
    assert log_versions(p) == [0, 1]
    spark.sql(f"UPDATE silt.`{p}` SET v = 'y' WHERE v IS NULL")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v SET NOT NULL")
    spark.sql(f"ALTER TABLE silt.`{p}` CHANGE COLUMN s.a SET NOT NULL")
    schema = json.loads(spark.sql(f"DESCRIBE HISTORY silt.`{p}`").first()["operationParameters"]["column"])
    assert schema == {"name": "s.a", "type": "integer", "nullable": False, "metadata": {}}
    for row in ("(3, named_struct('a', 3), NULL)", "(4, named_struct('a', CAST(NULL AS INT)), 'z')"):
        with pytest.raises(silt.ConstraintViolationException, match="NOT NULL constraint violated"):
            silt.errors.reraise(lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES {row}"))
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).collect()) == [(1, (1,), "x"), (2, (2,), "y")]
    # DROP NOT NULL undoes it
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v DROP NOT NULL")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3, named_struct('a', 3), NULL)")


@needs_spark("4.2", "INSERT WITH SCHEMA EVOLUTION")
def test_insert_with_schema_evolution_is_refused_and_commits_nothing(spark, tmp_path):
    # Spark's own evolution would add the columns in a commit before the insert's; Silt lets it add none
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT) USING silt")
    with pytest.raises(Exception, match="too many data columns"):
        spark.sql(f"INSERT WITH SCHEMA EVOLUTION INTO silt.`{p}` SELECT 1L, 'x' AS note")
    assert log_versions(p) == [0] and spark.read.format("silt").load(p).columns == ["id"]


@needs_spark_4("Parquet reader that widens int to bigint")
def test_alter_column_type_widens_array_elements_and_map_values(spark, tmp_path):
    p = str(tmp_path / "nested")
    spark.sql(f"CREATE TABLE silt.`{p}` (a ARRAY<INT>, m MAP<STRING, ARRAY<SMALLINT>>) USING silt "
              "TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (array(1, 2), map('k', array(3S)))")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN a.element TYPE BIGINT")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN m.value.element TYPE INT")
    schema = spark.read.format("silt").load(p).schema
    assert [f.dataType.simpleString() for f in schema.fields] == ["array<bigint>", "map<string,array<int>>"]
    assert schema["a"].metadata["delta.typeChanges"] == [{"toType": "long", "fromType": "integer", "fieldPath": "element"}]
    assert schema["m"].metadata["delta.typeChanges"] == [
        {"toType": "integer", "fromType": "short", "fieldPath": "value.element"}]
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (array(5000000000), map('k', array(100000)))")
    got = sorted((list(r.a), list(r.m["k"])) for r in spark.read.format("silt").load(p).collect())
    assert got == [([1, 2], [3]), ([5000000000], [100000])]
    commits = len(glob.glob(os.path.join(p, "_delta_log", "*.json")))
    for ddl, words in [("ALTER COLUMN a.element TYPE INT", "`a`.`element`"), ("ALTER COLUMN m.key TYPE INT", "`m`.`key`")]:
        with pytest.raises(Exception) as info:  # Spark's analyzer refuses these before Silt sees them
            spark.sql(f"ALTER TABLE silt.`{p}` {ddl}")
        assert words in str(info.value), info.value
    assert len(glob.glob(os.path.join(p, "_delta_log", "*.json"))) == commits


def test_types_no_delta_table_holds_are_refused_by_column(spark, tmp_path):
    """Collated strings, intervals (and Spark's other types the protocol has no name for) are refused
    when a table would get them, as the reference refuses them (DELTA_UNSUPPORTED_DATA_TYPES):
    nothing committed, the column named. CHAR and VARCHAR stay strings, as in Delta."""
    from test_writes import raises_silt
    p = str(tmp_path / "t")
    spark_3 = spark.version.startswith("3.")
    collated = [] if spark_3 else [  # Spark 3.5 has no collations
        (lambda: spark.sql(f"CREATE TABLE silt.`{p}` (s STRING COLLATE UTF8_LCASE, n INT) USING silt"), "column s")]
    for attempt, column in collated + [
        (lambda: spark.sql("SELECT INTERVAL '1' DAY AS gap, 1 AS n").write.format("silt").save(p), "column gap"),
        (lambda: spark.sql("SELECT named_struct('a', array(INTERVAL '2' MONTH)) AS s").write.format("silt").save(p),
         "column s.a[]"),
    ]:
        if spark_3 and column != "column s":
            with pytest.raises(Exception, match="interval"):  # Spark 3.5's writer refuses intervals before Silt
                attempt()
        else:
            msg = raises_silt(silt.errors.InvalidTableOperationException, attempt)
            assert column in msg and "Delta tables hold no such type" in msg, msg
        assert not os.path.exists(os.path.join(p, "_delta_log"))
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, c CHAR(3), v VARCHAR(5)) USING silt")
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMNS (gap INTERVAL DAY TO SECOND)"))
    assert "column gap" in msg and len(glob.glob(os.path.join(p, "_delta_log", "*.json"))) == 1
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'ab', 'xyz')")
    assert [tuple(r) for r in spark.read.format("silt").load(p).collect()] == [(1, "ab ", "xyz")]
    # stored as Delta stores them: strings with the declared type in the column's metadata
    with open(os.path.join(p, "_delta_log", f"{0:020d}.json")) as f:
        meta = next(json.loads(line)["metaData"] for line in f if '"metaData"' in line)
    fields = {f["name"]: f for f in json.loads(meta["schemaString"])["fields"]}
    assert fields["c"]["type"] == "string" and fields["c"]["metadata"]["__CHAR_VARCHAR_TYPE_STRING"] == "char(3)"
    with pytest.raises(Exception, match="(?i)length"):
        spark.sql(f"INSERT INTO silt.`{p}` VALUES (2, 'ab', 'too long')")
