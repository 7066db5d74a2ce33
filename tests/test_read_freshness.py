"""A DataFrame over a Silt table reads the table as it is each time it runs, as with Delta Lake
(a time-travel read stays at its version); one whose columns are gone must be defined again."""
import pytest

import silt


def test_a_dataframe_sees_later_writes_when_it_runs_again(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    spark.sql(f"CREATE TABLE fresh_t USING silt LOCATION '{p}'")
    try:
        by_path, by_name = spark.read.format("silt").load(p), spark.table("fresh_t")
        pinned = spark.read.format("silt").option("versionAsOf", 0).load(p)
        spark.range(3, 5).write.format("silt").mode("append").save(p)
        assert by_path.count() == by_name.count() == 5  # the reference Delta Lake 4.4 says 5 too
        assert pinned.count() == 3
        spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMNS (note STRING)")
        spark.createDataFrame([(9, "x")], "id long, note string").write.format("silt").mode("append").save(p)
        assert sorted(r["id"] for r in by_path.collect()) == [0, 1, 2, 3, 4, 9]  # its columns, the new rows
    finally:
        spark.sql("DROP TABLE fresh_t")


def test_rows_deleted_later_stay_deleted_even_when_the_table_gained_deletion_vectors(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(100).write.format("silt").save(p)
    df = spark.read.format("silt").load(p)
    assert df.count() == 100  # planned for a table without deletion vectors
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"DELETE FROM silt.`{p}` WHERE id < 10")
    assert spark.sql(f"DESCRIBE DETAIL '{p}'").first()["numFiles"] >= 1
    assert df.count() == 90 and df.where("id < 10").count() == 0


def test_a_dataframe_whose_columns_changed_must_be_defined_again(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    df = spark.read.format("silt").load(p)
    spark.range(3).selectExpr("CAST(id AS STRING) AS id").write.format("silt").mode("overwrite") \
        .option("overwriteSchema", "true").save(p)
    with pytest.raises(silt.InvalidTableOperationException, match="changed since this DataFrame was defined"):
        silt.errors.reraise(df.count)
    assert spark.read.format("silt").load(p).schema["id"].dataType.simpleString() == "string"
