"""SiltTable from Python: merge builder, restore, is_silt_table, for_name."""
import pytest
from pyspark.sql import functions as F

import silt


def test_merge_builder_restore_and_lookup(spark, tmp_path):
    p = str(tmp_path / "t")
    spark.range(0, 10).withColumn("v", F.lit("old")).write.format("silt").save(p)
    assert silt.SiltTable.is_silt_table(spark, p)
    assert not silt.SiltTable.is_silt_table(spark, str(tmp_path))
    t = silt.SiltTable.for_path(spark, p)
    src = spark.range(5, 15).withColumn("v", F.lit("new"))
    m = (t.merge(src, "target.id = source.id")
         .when_matched_delete("source.id = 5")
         .when_matched_update({"v": "source.v"})
         .when_not_matched_insert_all()
         .execute().first())
    assert (m["num_deleted_rows"], m["num_updated_rows"], m["num_inserted_rows"]) == (1, 4, 5)
    rows = {r["id"]: r["v"] for r in t.to_df().collect()}
    assert len(rows) == 14 and rows[0] == "old" and rows[7] == "new" and 5 not in rows
    r = t.restore_to_version(0).first()
    assert r["num_of_files_after_restore"] >= 1
    assert sorted(x["id"] for x in t.to_df().collect()) == list(range(10))
    assert t.history(1).first()["operation"] == "RESTORE"
    # to the content it has already: committed all the same, as Delta Lake does
    version = t.history(1).first()["version"]
    r = t.restore_to_version(version).first()
    assert (r["num_removed_files"], r["num_restored_files"]) == (0, 0)
    assert [(h["version"], h["operation"]) for h in t.history(1).collect()] == [(version + 1, "RESTORE")]
    spark.sql("CREATE TABLE api_named (id BIGINT) USING silt")
    named = silt.SiltTable.for_name(spark, "api_named")
    named.to_df().count()
    with pytest.raises(silt.NotADeltaTableException):
        silt.SiltTable.for_path(spark, str(tmp_path / "nothing"))
