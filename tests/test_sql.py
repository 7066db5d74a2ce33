"""SQL on Silt tables: CREATE TABLE, CTAS, INSERT, paths as silt.`path`, DESCRIBE HISTORY/DETAIL."""
import os

import pytest

import silt
from silt.errors import translate


@pytest.mark.smoke
def test_create_insert_overwrite_and_history(spark, tmp_path):
    spark.sql("CREATE TABLE events (id BIGINT, day INT, city STRING) USING silt PARTITIONED BY (day) "
              "TBLPROPERTIES ('delta.appendOnly' = 'false', 'owner.team' = 'data')")
    spark.sql("INSERT INTO events VALUES (1, 1, 'Paris'), (2, 2, 'Lyon'), (3, 1, 'Nice')")
    assert spark.table("events").columns == ["id", "day", "city"]
    assert spark.table("events").count() == 3
    spark.sql("INSERT OVERWRITE events PARTITION (day = 1) VALUES (9, 'Lille')")
    assert sorted(tuple(r) for r in spark.table("events").collect()) == [(2, 2, "Lyon"), (9, 1, "Lille")]
    spark.sql("INSERT OVERWRITE events SELECT 7, 7, 'Metz'")
    assert [tuple(r) for r in spark.table("events").collect()] == [(7, 7, "Metz")]
    hist = spark.sql("DESCRIBE HISTORY events").collect()
    assert [h["operation"] for h in hist] == ["WRITE", "WRITE", "WRITE", "CREATE TABLE"]
    assert hist[0]["operationParameters"]["mode"] == "Overwrite"
    assert hist[2]["operationMetrics"]["numOutputRows"] == "3"
    assert len(spark.sql("DESCRIBE HISTORY events LIMIT 1").collect()) == 1
    detail = spark.sql("DESC DETAIL events").first()
    assert detail["format"] == "delta" and detail["partitionColumns"] == ["day"]
    assert detail["properties"]["owner.team"] == "data"
    assert detail["numFiles"] == 1 and detail["version"] == 3
    assert spark.sql("SELECT * FROM events VERSION AS OF 1").count() == 3
    spark.sql("DROP TABLE events")


@pytest.mark.smoke
def test_ctas_and_path_tables(spark, tmp_path):
    p = str(tmp_path / "byPath")
    spark.sql(f"CREATE TABLE silt.`{p}` USING silt AS SELECT id, id % 3 AS k FROM range(10)")
    assert spark.read.format("silt").load(p).count() == 10
    spark.sql(f"INSERT INTO silt.`{p}` SELECT 10, 1")
    assert spark.sql(f"SELECT count(*) AS n FROM silt.`{p}`").first()["n"] == 11
    spark.sql(f"CREATE TABLE adopted USING silt LOCATION '{p}'")
    assert spark.table("adopted").count() == 11
    assert spark.sql(f"DESCRIBE HISTORY silt.`{p}`").count() == spark.sql("DESCRIBE HISTORY adopted").count()
    spark.sql("CREATE TABLE copy USING silt PARTITIONED BY (k) AS SELECT * FROM adopted")
    assert spark.sql("DESCRIBE DETAIL copy").first()["partitionColumns"] == ["k"]
    assert spark.table("copy").where("k = 1").count() == 4


def test_sql_errors_name_the_problem(spark, tmp_path):
    with pytest.raises(Exception) as info:
        spark.sql(f"DESCRIBE HISTORY '{tmp_path}/nothing'").collect()
    assert isinstance(translate(info.value), silt.NotADeltaTableException)
    spark.sql("CREATE TABLE plain_parquet (a INT) USING parquet")
    with pytest.raises(Exception) as info:
        spark.sql("DESCRIBE HISTORY plain_parquet").collect()
    assert "not silt" in str(translate(info.value))
    spark.sql("CREATE TABLE typed (a INT) USING silt")
    with pytest.raises(Exception, match="(?i)cast|type"):
        spark.sql("INSERT INTO typed VALUES ('not a number')").collect()


def test_non_silt_sql_still_works(spark):
    assert spark.sql("SELECT 1 AS one").first()["one"] == 1
    assert spark.sql("describe function abs").count() > 0
    with pytest.raises(Exception, match="PARSE_SYNTAX_ERROR|Syntax error"):
        spark.sql("SELEC 1")


def test_a_managed_table_is_not_created_over_files_already_there(spark, tmp_path):
    """As in Delta Lake: a managed table's folder must be empty; LOCATION registers what is there."""
    spark.sql("DROP TABLE IF EXISTS stale_managed")
    warehouse = spark.conf.get("spark.sql.warehouse.dir").replace("file:", "")
    stale = os.path.join(warehouse, "stale_managed")
    spark.range(3).write.format("silt").mode("overwrite").save(stale)
    try:
        with pytest.raises(silt.InvalidTableOperationException, match="not empty"):
            silt.errors.reraise(lambda: spark.sql("CREATE TABLE stale_managed (id BIGINT) USING silt"))
        with pytest.raises(silt.InvalidTableOperationException, match="not empty"):
            silt.errors.reraise(lambda: spark.sql("CREATE TABLE stale_managed USING silt AS SELECT 1 AS id"))
        assert spark.read.format("silt").load(stale).count() == 3  # left as it was
        spark.sql(f"CREATE TABLE stale_managed USING silt LOCATION '{stale}'")
        assert spark.table("stale_managed").count() == 3
    finally:
        spark.sql("DROP TABLE IF EXISTS stale_managed")
