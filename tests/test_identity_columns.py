"""Identity columns: values generated for rows that leave the column out (INSERT, DataFrame appends,
MERGE inserts), unique and above the high-water mark kept in the schema; ALWAYS refuses given
values, no identity value is updated; concurrent writers conflict rather than repeat a value, and a
writer that generates none builds on one that did."""
import json
from pathlib import Path

import pytest

import silt
from conftest import concurrently
from silt.delta.tables import DeltaTable, IdentityGenerator
from test_writes import raises_silt


def schema_field(path, name):
    metas = [json.loads(line)["metaData"] for f in sorted(Path(path, "_delta_log").glob("*.json"))
             for line in f.read_text().splitlines() if '"metaData"' in line]
    fields = json.loads(metas[-1]["schemaString"])["fields"]
    return next(f for f in fields if f["name"] == name)


def values(spark, p, col="id"):
    return sorted(r[0] for r in spark.sql(f"SELECT {col} FROM silt.`{p}`").collect())


@pytest.mark.smoke
def test_always_identity_generates_unique_values_above_the_mark(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5), "
              "v STRING) USING silt")
    meta = schema_field(p, "id")["metadata"]
    assert (meta["delta.identity.start"], meta["delta.identity.step"], meta["delta.identity.allowExplicitInsert"]) == \
        (10, 5, False)
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('a'), ('b'), ('c')")
    first = values(spark, p)
    assert len(set(first)) == 3 and all(v >= 10 and (v - 10) % 5 == 0 for v in first)
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == max(first)
    spark.range(50).selectExpr("CAST(id AS STRING) AS v").repartition(4).write.format("silt").mode("append").save(p)
    spark.createDataFrame([("m",)], "v STRING").createOrReplaceTempView("id_src")
    spark.sql(f"MERGE INTO silt.`{p}` t USING id_src s ON t.v = s.v WHEN NOT MATCHED THEN INSERT (v) VALUES (s.v)")
    got = values(spark, p)
    assert len(got) == 54 and len(set(got)) == 54
    assert all(v > max(first) for v in got if v not in first)
    assert all((v - 10) % 5 == 0 for v in got)
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == max(got)
    protocol = [json.loads(line)["protocol"] for line in (Path(p) / "_delta_log" / f"{0:020d}.json").read_text()
                .splitlines() if '"protocol"' in line][0]
    assert protocol["minWriterVersion"] >= 6


def test_always_refuses_given_values_and_no_identity_value_is_updated(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('a')")
    before = len(list(Path(p, "_delta_log").glob("*.json")))
    for attempt in [
        lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (5, 'b')"),
        lambda: spark.sql(f"INSERT INTO silt.`{p}` (id, v) VALUES (5, 'b')"),
        lambda: spark.createDataFrame([(5, "b")], "id BIGINT, v STRING").write.format("silt").mode("append").save(p),
        lambda: spark.sql(f"UPDATE silt.`{p}` SET id = 7"),
        lambda: spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 1 AS id, 'z' AS v) s ON t.v = s.v "
                          "WHEN NOT MATCHED THEN INSERT *"),
        # an explicit NULL is a given value too (the reference refuses it as well)
        lambda: spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 'z' AS v) s ON false "
                          "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (NULL, s.v)"),
        lambda: spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 5 AS id, 'a' AS v) s ON t.v = s.v WHEN MATCHED THEN UPDATE SET *"),
    ]:
        msg = raises_silt(silt.errors.InvalidTableOperationException, attempt)
        assert "identity column id" in msg
    assert len(list(Path(p, "_delta_log").glob("*.json"))) == before
    spark.sql(f"UPDATE silt.`{p}` SET v = 'A'")  # other columns update as usual
    assert [tuple(r) for r in spark.sql(f"SELECT id, v FROM silt.`{p}`").collect()] == [(1, "A")]


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_by_default_takes_given_values_and_generates_the_others(spark, tmp_path):
    p = str(tmp_path / "t")
    (DeltaTable.create(spark).location(p)
        .addColumn("id", "BIGINT", generatedByDefaultAs=IdentityGenerator(start=-1, step=-1))
        .addColumn("v", "STRING").execute())
    meta = schema_field(p, "id")["metadata"]
    assert meta["delta.identity.allowExplicitInsert"] is True and meta["delta.identity.step"] == -1
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (100, 'given')")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('x'), ('y')")
    # an explicit NULL stays NULL, in INSERT and MERGE alike, as the reference does
    spark.sql(f"INSERT INTO silt.`{p}` (id, v) VALUES (NULL, 'n1')")
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 'n2' AS v) s ON false "
              "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (NULL, s.v)")
    got = [r[0] for r in spark.sql(f"SELECT id FROM silt.`{p}`").collect()]
    assert got.count(None) == 2
    assert 100 in got and sorted(v for v in got if v not in (100, None)) == [-2, -1]
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == -2


def test_concurrent_identity_writers_conflict_rather_than_repeat_values(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING) USING silt")
    err = concurrently(spark, p, lambda: spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('first')"),
                       lambda: spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('second')"))
    assert isinstance(err, silt.errors.MetadataChangedException), err
    assert "same high-water mark" in str(err), err
    assert [tuple(r) for r in spark.sql(f"SELECT id, v FROM silt.`{p}`").collect()] == [(1, "second")]
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('again')")
    assert values(spark, p) == [1, 2]


def commit_info(path, version):
    line = next(x for x in Path(path, "_delta_log", f"{version:020d}.json").read_text().splitlines() if '"commitInfo"' in x)
    return json.loads(line)["commitInfo"]


@pytest.mark.parametrize("paused", [
    "DELETE FROM silt.`{p}` WHERE v = 'b'",
    "UPDATE silt.`{p}` SET v = 'x' WHERE v = 'c'",
    pytest.param("MERGE INTO silt.`{p}` t USING (SELECT 'a' AS v) s ON t.v = s.v WHEN MATCHED THEN UPDATE SET v = 'm'",
                 marks=pytest.mark.full),
])
def test_a_writer_generating_no_identity_values_builds_on_one_that_did(spark, tmp_path, paused):
    # As in Delta Lake: the winner's metadata moved only the identity mark, and the paused statement changes no metadata.
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('a'), ('b'), ('c')")
    err = concurrently(spark, p, lambda: spark.sql(paused.format(p=p)).collect(),
                       lambda: spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('d'), ('e')"))
    assert err is None, err
    assert values(spark, p) == ([1, 3, 4, 5] if "DELETE" in paused else [1, 2, 3, 4, 5])
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == 5
    # the winner's commit carries Delta Lake's tag, so that Delta Lake's writers build on it too
    assert commit_info(p, 2)["tags"] == {"delta.identity.schemaUpdate": "true"}
    assert "tags" not in commit_info(p, 3)
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('f')")
    assert max(values(spark, p)) == 6


@pytest.mark.full  # second tier; the smoke tests here stay in make test
def test_identity_definitions_refused_where_delta_refuses_them(spark, tmp_path):
    for ddl in ["(id INT GENERATED ALWAYS AS IDENTITY, v STRING)",
                "(id BIGINT GENERATED ALWAYS AS IDENTITY (INCREMENT BY 0), v STRING)"]:
        q = str(tmp_path / f"bad{len(ddl)}")
        with pytest.raises(Exception, match="identity|IDENTITY|step|increment|INCREMENT"):
            silt.errors.reraise(lambda: spark.sql(f"CREATE TABLE silt.`{q}` {ddl} USING silt"))
        assert not Path(q, "_delta_log").exists()
    q = str(tmp_path / "part")
    raises_silt(silt.errors.InvalidTableOperationException, lambda: spark.sql(
        f"CREATE TABLE silt.`{q}` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING) USING silt PARTITIONED BY (id)"))


@pytest.mark.smoke  # on Spark 3.5, Silt reads these clauses around Spark's parser: the rest stays Spark's
def test_identity_and_cluster_by_among_the_other_clauses_of_a_definition(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"""CREATE OR REPLACE TABLE silt.`{p}` (
        `my id` BIGINT GENERATED BY DEFAULT AS IDENTITY (INCREMENT BY -3 START WITH 100) COMMENT 'ids',
        v STRING COMMENT 'CLUSTER BY (nope)', -- CLUSTER BY (nope)
        w INT GENERATED ALWAYS AS (length(v))
      ) USING silt CLUSTER BY (v) TBLPROPERTIES ('a' = 'b')""")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('hello')")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('x')")
    assert sorted(tuple(r) for r in spark.sql(f"SELECT * FROM silt.`{p}`").collect()) == [(97, "x", 1), (100, "hello", 5)]
    d = spark.sql(f"DESCRIBE DETAIL silt.`{p}`").first()
    assert d["clusteringColumns"] == ["v"] and d["properties"]["a"] == "b"
    meta = schema_field(p, "my id")["metadata"]
    assert meta["comment"] == "ids" and meta["delta.identity.step"] == -3 and "silt.parsedIdentity" not in meta

    # a query's own CLUSTER BY (distribute and sort) is the query's, not the table's clustering
    q = str(tmp_path / "q")
    spark.sql(f"CREATE TABLE silt.`{q}` USING silt AS SELECT id, id % 2 AS k FROM range(10) CLUSTER BY k")
    assert spark.sql(f"DESCRIBE DETAIL silt.`{q}`").first()["clusteringColumns"] == []
    # a table without identity columns refuses them rather than dropping them
    spark.sql("DROP TABLE IF EXISTS identity_pq")
    with pytest.raises(Exception, match="identity"):
        spark.sql("CREATE TABLE identity_pq (id BIGINT GENERATED ALWAYS AS IDENTITY) USING parquet")
    assert not spark.catalog.tableExists("identity_pq")


@pytest.mark.smoke
def test_sync_identity_moves_the_mark_past_given_values(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH 1 INCREMENT BY 10), "
              "v STRING) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('a')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (95, 'given')")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN id SYNC IDENTITY")
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == 101
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('b')")
    assert values(spark, p) == [1, 95, 111]
    # the mark never goes back; a column that is not an identity column is named
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id > 1")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN id SYNC IDENTITY")
    assert schema_field(p, "id")["metadata"]["delta.identity.highWaterMark"] == 111
    msg = raises_silt(silt.errors.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN v SYNC IDENTITY"))
    assert "not an identity column" in msg


def test_rows_read_from_an_identity_table_create_plain_columns(spark, tmp_path):
    """A DataFrame read from a table with identity and generated columns carries none of their metadata,
    as the reference's; a write (or CTAS) of it creates plain columns holding the values, as the reference does."""
    p, copy, ctas = str(tmp_path / "t"), str(tmp_path / "copy"), str(tmp_path / "ctas")
    spark.sql(f"CREATE TABLE silt.`{p}` (id BIGINT GENERATED ALWAYS AS IDENTITY, v STRING, "
              "g STRING GENERATED ALWAYS AS (upper(v))) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` (v) VALUES ('a'), ('b')")
    df = spark.read.format("silt").load(p)
    assert df.schema["id"].metadata == {} and df.schema["g"].metadata == {}
    df.write.format("silt").save(copy)
    spark.sql(f"CREATE TABLE silt.`{ctas}` USING silt AS SELECT * FROM silt.`{p}`")
    for t in (copy, ctas):
        assert schema_field(t, "id")["metadata"] == {} and schema_field(t, "g")["metadata"] == {}
        spark.sql(f"INSERT INTO silt.`{t}` VALUES (7, 'c', 'not upper')")  # plain columns take any value
        assert sorted(tuple(r) for r in spark.read.format("silt").load(t).collect()) == [
            (1, "a", "A"), (2, "b", "B"), (7, "c", "not upper")]
