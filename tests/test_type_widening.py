"""Type widening (`delta.enableTypeWidening`): tables the reference Delta Lake widened (ALTER COLUMN … TYPE)
read, filtered and continued; Silt's own widenings by ALTER TABLE, mergeSchema and MERGE WITH SCHEMA
EVOLUTION; on Spark 3.5, the widenings its Parquet reader cannot apply refused by name."""
import json
from decimal import Decimal
from datetime import datetime
from pathlib import Path

import pyspark
import pytest

import silt
from conftest import needs_spark_4
from test_table_features import fixture, log_lines, protocol_of
from test_writes import raises_silt

# Spark 3.5 reads the files of a widened column only among byte, short and int (the refusals: below)
needs_wide_parquet_reads = needs_spark_4(
    "Parquet reader that widens int to bigint, float to double, date to timestamp_ntz")

WIDENED_ROWS = [
    (1, 100, 0.10000000149011612, datetime(2024, 1, 5),
     Decimal("12.3400"), 7, [1, 2], Decimal("1.00")),
    (300, 5000000000, 0.2, datetime(2024, 2, 1, 10), Decimal("123456.7891"), 9000000000, [3000000000],
     Decimal("5.00")),
]


def widened_rows(df):
    return sorted((r.b, r.i, r.f, r.d, r.dec, r.s.x, list(r.a), r.k) for r in df.collect())


@pytest.mark.smoke  # on every Spark minor: the APIs these use differ between minors
@needs_wide_parquet_reads
@pytest.mark.parametrize("vectorized", ["true", "false"])
def test_reads_a_table_the_reference_engine_widened(spark, tmp_path, vectorized):
    p = fixture("type_widening", tmp_path)
    spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
    try:
        df = spark.read.format("silt").load(p)
        assert [f.dataType.simpleString() for f in df.schema.fields] == [
            "int", "bigint", "double", "timestamp_ntz", "decimal(10,4)", "struct<x:bigint>", "array<bigint>",
            "decimal(12,2)"]
        assert widened_rows(df) == WIDENED_ROWS
    finally:
        spark.conf.unset("spark.sql.parquet.enableVectorizedReader")


@pytest.mark.smoke
def test_widens_byte_to_int_on_every_spark(spark, tmp_path):
    """The widenings Spark 3.5's Parquet reader applies too: among byte, short and int (one Parquet type)."""
    p = str(tmp_path / "narrow")
    spark.sql(f"CREATE TABLE silt.`{p}` (b TINYINT) USING silt TBLPROPERTIES ('delta.enableTypeWidening' = 'true')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN b TYPE INT")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (100000)")
    df = spark.read.format("silt").load(p)
    assert df.schema["b"].dataType.simpleString() == "int"
    assert sorted(r.b for r in df.collect()) == [1, 100000]


@pytest.mark.smoke
@pytest.mark.skipif(not pyspark.__version__.startswith("3."), reason="what Spark 3.5 refuses")
def test_on_spark_3_variant_tables_and_wider_widenings_are_refused_by_name(spark, tmp_path):
    # the reference's widenings to bigint, double, timestamp_ntz, decimal: Spark 3.5 cannot read the old files
    widened = fixture("type_widening", tmp_path)
    msg = raises_silt(silt.UnsupportedTableFeatureException, lambda: spark.read.format("silt").load(widened).collect())
    assert "type change" in msg and "Spark 3.5's Parquet reader widens byte, short and int" in msg
    p = str(tmp_path / "int")
    spark.sql(f"CREATE TABLE silt.`{p}` (i INT) USING silt TBLPROPERTIES ('delta.enableTypeWidening' = 'true')")
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN i TYPE BIGINT"))
    assert "from INT to BIGINT on this Spark" in msg
    wide = spark.sql("SELECT 5000000000L AS i")  # an append that would widen the column by itself on Spark 4
    msg = raises_silt(silt.SchemaMismatchException,
                      lambda: wide.write.format("silt").mode("append").option("mergeSchema", "true").save(p))
    assert "type widening cannot make this change here" in msg and "Spark 3.5's Parquet reader" in msg
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    msg = raises_silt(silt.SchemaMismatchException, lambda: spark.sql(
        f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING (SELECT 5000000000L AS i) s ON t.i = s.i "
        "WHEN NOT MATCHED THEN INSERT *"))
    assert "type widening cannot make this change here" in msg and "column i" in msg
    # a table with a VARIANT column (another engine's, on Spark 4)
    log = tmp_path / "variant" / "_delta_log"
    log.mkdir(parents=True)
    schema = {"type": "struct", "fields": [{"name": "j", "type": "variant", "nullable": True, "metadata": {}}]}
    (log / "00000000000000000000.json").write_text("\n".join(json.dumps(a) for a in [
        {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": ["variantType"],
                      "writerFeatures": ["variantType"]}},
        {"metaData": {"id": "v", "format": {"provider": "parquet", "options": {}}, "schemaString": json.dumps(schema),
                      "partitionColumns": [], "configuration": {}, "createdTime": 0}}]) + "\n")
    msg = raises_silt(silt.UnsupportedTableFeatureException,
                      lambda: spark.read.format("silt").load(str(log.parent)).collect())
    assert "variantType" in msg and "Spark 4.0" in msg


@needs_wide_parquet_reads
def test_filters_on_widened_columns_keep_every_matching_row(spark, tmp_path):
    """The float 0.1 read as a double is 0.10000000149…, above its file's max statistic "0.1": min/max
    written before a float -> double widening are not used (the reference engine loses that row)."""
    p = fixture("type_widening", tmp_path)
    df = spark.read.format("silt").load(p)
    assert df.where("f > 0.1").count() == 2
    assert df.where("f = CAST(CAST(0.1 AS FLOAT) AS DOUBLE)").count() == 1
    assert df.where("i > 50").count() == 2 and df.where("i > 100").count() == 1
    assert df.where("d >= TIMESTAMP_NTZ'2024-01-05 00:00:00'").count() == 2
    assert df.where("d > TIMESTAMP_NTZ'2024-01-05 00:00:00'").count() == 1
    assert df.where("k = 1").count() == 1 and df.where("dec < 13").count() == 1


@needs_wide_parquet_reads
def test_continues_writing_a_widened_table_keeping_its_type_history(spark, tmp_path):
    p = fixture("type_widening", tmp_path)
    before = json.loads([a for a in log_lines(p, 9) if "metaData" in a][0]["metaData"]["schemaString"])
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (7, 7, 0.7, TIMESTAMP_NTZ'2024-03-01 10:00:00', 7.7, "
              "named_struct('x', 7), array(7), 7)")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE b = 1")
    assert sorted(r.b for r in spark.read.format("silt").load(p).collect()) == [7, 300]
    after = json.loads(spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, p).latest().metadata()
                       .schemaString())
    assert after == before  # delta.typeChanges kept on every field


@needs_wide_parquet_reads
def test_alter_column_type_widens_without_rewriting_files(spark, tmp_path):
    p = str(tmp_path / "w")
    spark.sql(f"CREATE TABLE silt.`{p}` (i INT, f FLOAT, s STRUCT<x: SMALLINT>) USING silt")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 0.5, named_struct('x', 2S))")
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN i TYPE BIGINT"))
    assert "delta.enableTypeWidening" in msg
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.enableTypeWidening = true)")
    proto = protocol_of(p)
    assert "typeWidening" in proto["readerFeatures"] and "typeWidening" in proto["writerFeatures"]
    files_before = {a["add"]["path"] for a in log_lines(p, 1) if "add" in a}
    for col, typ in [("i", "BIGINT"), ("f", "DOUBLE"), ("s.x", "INT")]:
        spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN {col} TYPE {typ}")
    schema = spark.read.format("silt").load(p).schema
    assert [f.dataType.simpleString() for f in schema.fields] == ["bigint", "double", "struct<x:int>"]
    assert schema["i"].metadata["delta.typeChanges"] == [{"toType": "long", "fromType": "integer"}]
    assert schema["s"].dataType["x"].metadata["delta.typeChanges"] == [{"toType": "integer", "fromType": "short"}]
    live = spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, p).latest().files()
    assert {live.apply(i).path() for i in range(live.size())} == files_before
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (5000000000, 0.25, named_struct('x', 100000))")
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).selectExpr("i", "f", "s.x").collect()) == [
        (1, 0.5, 2), (5000000000, 0.25, 100000)]
    version = len(list(Path(p, "_delta_log").glob("*.json")))
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN i TYPE DOUBLE"))
    assert "cannot change from BIGINT to DOUBLE" in msg  # Spark allows it; Delta does not (precision lost)
    assert len(list(Path(p, "_delta_log").glob("*.json"))) == version  # nothing committed


@needs_wide_parquet_reads
def test_appends_with_merge_schema_widen_types_where_delta_does(spark, tmp_path):
    p = str(tmp_path / "auto")
    spark.sql(f"CREATE TABLE silt.`{p}` (i INT, f FLOAT, s STRUCT<x: SMALLINT>, k INT) USING silt "
              "TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 0.5, named_struct('x', 2S), 3)")
    wide = spark.sql("SELECT 5000000000L AS i, CAST(0.25 AS DOUBLE) AS f, named_struct('x', 70000) AS s, 4 AS k")
    with pytest.raises(Exception):  # without mergeSchema, schema enforcement as before
        silt.errors.reraise(lambda: wide.write.format("silt").mode("append").save(p))
    wide.write.format("silt").mode("append").option("mergeSchema", "true").save(p)
    schema = spark.read.format("silt").load(p).schema
    assert [f.dataType.simpleString() for f in schema.fields] == ["bigint", "double", "struct<x:int>", "int"]
    assert schema["i"].metadata["delta.typeChanges"] == [{"toType": "long", "fromType": "integer"}]
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).selectExpr("i", "f", "s.x", "k").collect()) == \
        [(1, 0.5, 2, 3), (5000000000, 0.25, 70000, 4)]
    # integers to decimal are left to ALTER TABLE, as in Delta Lake; without the property, nothing widens
    q = str(tmp_path / "off")
    spark.sql(f"CREATE TABLE silt.`{q}` (i INT) USING silt")
    for target, data in [(p, "SELECT CAST(7 AS DECIMAL(20, 0)) AS k"), (q, "SELECT 5000000000L AS i")]:
        with pytest.raises(Exception):
            silt.errors.reraise(lambda: spark.sql(data).write.format("silt").mode("append")
                                .option("mergeSchema", "true").save(target))


@needs_wide_parquet_reads
def test_merge_with_schema_evolution_widens_types_where_delta_does(spark, tmp_path):
    p = str(tmp_path / "merge_widen")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, n INT, s STRUCT<x: SMALLINT>) USING silt "
              "TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 10, named_struct('x', 1S)), (2, 20, named_struct('x', 2S))")
    spark.sql("SELECT 2 AS id, 5000000000L AS n, named_struct('x', 70000) AS s UNION ALL "
              "SELECT 3, 7L, named_struct('x', 3)").createOrReplaceTempView("wide_src")
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING wide_src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    schema = spark.read.format("silt").load(p).schema
    assert [f.dataType.simpleString() for f in schema.fields] == ["int", "bigint", "struct<x:int>"]
    assert schema["n"].metadata["delta.typeChanges"] == [{"toType": "long", "fromType": "integer"}]
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).selectExpr("id", "n", "s.x").collect()) == \
        [(1, 10, 1), (2, 5000000000, 70000), (3, 7, 3)]
    # integers are not widened to decimal by themselves (as in Delta Lake): the value is cast to the column's type
    before = len(list(Path(p, "_delta_log").glob("*.json")))
    spark.sql("SELECT 1 AS id, CAST(9 AS DECIMAL(20, 0)) AS n").createOrReplaceTempView("dec_src")
    spark.sql(f"MERGE WITH SCHEMA EVOLUTION INTO silt.`{p}` t USING dec_src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET n = s.n")
    assert spark.read.format("silt").load(p).schema["n"].dataType.simpleString() == "bigint"
    assert spark.read.format("silt").load(p).where("id = 1").first().n == 9
    assert len(list(Path(p, "_delta_log").glob("*.json"))) == before + 1
