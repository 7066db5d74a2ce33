"""MERGE: which target files and rows it reads (the ON condition's target-only conjuncts, the source's
key ranges), source rows that match a target row twice, NOT MATCHED BY SOURCE."""
from collections import Counter

import pytest
from pyspark.sql import functions as F

from test_dml import last_metrics, make_table, rows


@pytest.mark.parametrize("dvs", [True, False])
def test_merge_reads_only_target_files_the_on_condition_allows(spark, tmp_path, dvs):
    # The target-only conjuncts (a partition and a statistics predicate) choose the files; rows
    # elsewhere match no source row, so a source row with their id is inserted, not matched.
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=dvs, rows=600, files_per_day=2)  # ids 0-299 and 300-599 per day
    spark.createDataFrame([(1, 1, "upd"), (4, 1, "upd"), (301, 1, "new"), (3, 0, "new")],
                          "id long, day int, city string").createOrReplaceTempView("skip_src")
    m = spark.sql(f"MERGE INTO silt.`{p}` t USING skip_src s ON t.id = s.id AND t.day = 1 AND t.id < 300 "
                  "WHEN MATCHED THEN UPDATE SET city = s.city WHEN NOT MATCHED THEN INSERT *").first()
    assert (m["num_updated_rows"], m["num_inserted_rows"]) == (2, 2)
    metrics = last_metrics(spark, p)["operationMetrics"]
    assert (metrics["numTargetFilesBeforeSkipping"], metrics["numTargetFilesAfterSkipping"]) == ("6", "1")
    got = rows(spark, p)
    assert got[(1, 1, "upd")] == 1 and got[(4, 1, "upd")] == 1
    assert got[(301, 1, "new")] == 1 and got[(301, 1, "c0")] == 1  # inserted beside the row it did not match
    assert got[(3, 0, "new")] == 1 and got[(3, 0, "c3")] == 1 and sum(got.values()) == 602
    # NOT MATCHED BY SOURCE may change any target row: every file is read
    spark.sql(f"MERGE INTO silt.`{p}` t USING skip_src s ON t.id = s.id AND t.day = 1 "
              "WHEN MATCHED THEN UPDATE SET city = s.city WHEN NOT MATCHED BY SOURCE AND t.id = 0 THEN DELETE")
    metrics = last_metrics(spark, p)["operationMetrics"]
    assert metrics["numTargetFilesAfterSkipping"] == metrics["numTargetFilesBeforeSkipping"]
    assert sum(rows(spark, p).values()) == 601
    # no target file can match: every source row is inserted
    spark.sql(f"MERGE INTO silt.`{p}` t USING skip_src s ON t.id = s.id AND t.day = 99 "
              "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT *")
    assert last_metrics(spark, p)["operationMetrics"]["numTargetFilesAfterSkipping"] == "0"
    assert sum(rows(spark, p).values()) == 605


@pytest.mark.parametrize("dvs", [True, False])
def test_merge_reads_only_target_files_within_the_source_keys(spark, tmp_path, dvs):
    # A target row whose key lies outside the source's range of that key joins no source row: files
    # whose statistics lie outside it are not read, and the rows of the others still match.
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=dvs, rows=600, files_per_day=2)  # per day: ids 0-299 and 300-599
    def merge(data, on="t.id = s.id"):
        spark.createDataFrame(data, "id long, day int, city string").createOrReplaceTempView("range_src")
        m = spark.sql(f"MERGE INTO silt.`{p}` t USING range_src s ON {on} "
                      "WHEN MATCHED THEN UPDATE SET city = s.city WHEN NOT MATCHED THEN INSERT *").first()
        metrics = last_metrics(spark, p)["operationMetrics"] if m["num_affected_rows"] else None
        return (m["num_updated_rows"], m["num_inserted_rows"]), metrics
    counts, metrics = merge([(310, 1, "upd"), (330, 0, "upd"), (5000, 2, "new")])
    assert counts == (2, 1)
    assert (metrics["numTargetFilesBeforeSkipping"], metrics["numTargetFilesAfterSkipping"]) == ("6", "3")
    assert metrics["numSourceRows"] == "3"
    # new keys only: no target file is read, every row is inserted
    counts, metrics = merge([(10_000, 1, "n1"), (10_001, 2, "n2")])
    assert counts == (0, 2) and metrics["numTargetFilesAfterSkipping"] == "0"
    # a key no source row has a value for matches nothing (NULL equals nothing)
    counts, metrics = merge([(None, 1, "null")])
    assert counts == (0, 1) and metrics["numTargetFilesAfterSkipping"] == "0"
    # an empty source changes nothing and commits nothing
    version = spark.sql(f"DESCRIBE HISTORY '{p}' LIMIT 1").first()["version"]
    assert merge([])[0] == (0, 0)
    assert spark.sql(f"DESCRIBE HISTORY '{p}' LIMIT 1").first()["version"] == version
    # a string key and a key of another type (compared through a cast: no range) still match
    counts, _ = merge([(1, 1, "c1"), (2, 2, "zz")], on="t.city = s.city AND t.id = cast(s.id AS int)")
    assert counts == (1, 1)
    got = rows(spark, p)
    assert got[(310, 1, "upd")] == 1 and got[(330, 0, "upd")] == 1 and got[(5000, 2, "new")] == 1
    assert got[(None, 1, "null")] == 1 and got[(1, 1, "c1")] == 1 and got[(2, 2, "zz")] == 1
    assert got[(10_000, 1, "n1")] == 1 and sum(got.values()) == 600 + 5


def test_merge_by_source_key_ranges_agrees_with_a_model(spark, tmp_path):
    # Property: whatever the source's keys (old, new, NULL, beside the target's files' ranges), the
    # MERGE gives the rows of the model, so the files its key ranges skip held no matching row.
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    counter = iter(range(10**6))
    keys = st.one_of(st.none(), st.integers(-20, 620), st.integers(990, 1010))
    @settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(source=st.lists(keys, max_size=12), dvs=st.booleans())
    def check(source, dvs):
        source = [k for n, k in enumerate(source) if k is None or k not in source[:n]]  # a row matches one source row at most
        p = str(tmp_path / f"m{next(counter)}")
        spark.sql(f"CREATE TABLE silt.`{p}` USING silt TBLPROPERTIES ('delta.enableDeletionVectors' = '{str(dvs).lower()}') "
                  "AS SELECT id, 'old' AS city FROM range(0, 600, 1, 3) UNION ALL SELECT id, 'old' FROM range(1000, 1003)")
        spark.createDataFrame([(k, f"s{n}") for n, k in enumerate(source)], "id long, city string") \
            .createOrReplaceTempView("model_src")
        spark.sql(f"MERGE INTO silt.`{p}` t USING model_src s ON t.id = s.id "
                  "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
        target = list(range(0, 600)) + [1000, 1001, 1002]
        by_key = {k: f"s{n}" for n, k in enumerate(source) if k is not None}
        expected = Counter((i, by_key.get(i, "old")) for i in target)
        expected.update((k, f"s{n}") for n, k in enumerate(source) if k is None or k not in target)
        assert rows(spark, p) == expected
    check()


@pytest.mark.parametrize("dvs", [True, False])
def test_merge_with_two_source_rows_for_one_target_row_fails_and_changes_nothing(spark, tmp_path, dvs):
    # Copy-on-write used to write the target row once per source row: a silent duplicate.
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=dvs, rows=30, files_per_day=1)
    spark.createDataFrame([(1, 1, "a"), (1, 1, "b")], "id long, day int, city string").createOrReplaceTempView("dup_src")
    before = rows(spark, p)
    version = spark.sql(f"DESCRIBE HISTORY '{p}' LIMIT 1").first()["version"]
    # As in Delta Lake, even when no WHEN MATCHED condition holds for either source row.
    for sql in ("WHEN MATCHED THEN UPDATE SET *", "WHEN MATCHED AND s.city = 'b' THEN DELETE WHEN MATCHED THEN UPDATE SET *",
                "WHEN MATCHED AND s.city = 'zz' THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *",
                "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED BY SOURCE AND t.id = 2 THEN DELETE"):
        with pytest.raises(Exception, match="matches 2 source rows of this MERGE"):
            spark.sql(f"MERGE INTO silt.`{p}` t USING dup_src s ON t.id = s.id {sql}")
    assert rows(spark, p) == before
    assert spark.sql(f"DESCRIBE HISTORY '{p}' LIMIT 1").first()["version"] == version


@pytest.mark.parametrize("dvs", [True, False])
def test_merge_source_rows_that_match_twice_are_allowed_for_inserts_and_an_unconditional_delete(spark, tmp_path, dvs):
    # As in Delta Lake: when matches only decide what is inserted, or only delete, they are unambiguous.
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=dvs, rows=30, files_per_day=1)
    spark.createDataFrame([(1, 1, "a"), (1, 1, "b"), (2, 2, "c"), (100, 1, "new")],
                          "id long, day int, city string").createOrReplaceTempView("twice_src")
    before = rows(spark, p)
    m = spark.sql(f"MERGE INTO silt.`{p}` t USING twice_src s ON t.id = s.id WHEN NOT MATCHED THEN INSERT *").first()
    assert (m["num_updated_rows"], m["num_deleted_rows"], m["num_inserted_rows"]) == (0, 0, 1)
    expected = before.copy()
    expected[(100, 1, "new")] += 1
    assert rows(spark, p) == expected
    # NOT MATCHED BY SOURCE: id 1 is matched (twice), so that clause leaves it alone
    spark.sql(f"MERGE INTO silt.`{p}` t USING twice_src s ON t.id = s.id WHEN MATCHED THEN DELETE "
              "WHEN NOT MATCHED BY SOURCE AND t.id < 4 THEN DELETE")
    assert sum(rows(spark, p).values()) == 26 and not any(r[0] in (0, 1, 2, 3, 100) for r in rows(spark, p))
    m = last_metrics(spark, p)["operationMetrics"]
    assert m["numTargetRowsDeleted"] == "5" and m["numSourceRows"] == "4"
    # split by the clauses that deleted them, as Delta Lake records it
    by_clause = int(m["numTargetRowsMatchedDeleted"]), int(m["numTargetRowsNotMatchedBySourceDeleted"])
    assert sum(by_clause) == 5 and min(by_clause) > 0


@pytest.mark.smoke
def test_merge_not_matched_by_source(spark, tmp_path):
    p = str(tmp_path / "t")
    make_table(spark, p, dvs=True, rows=10, files_per_day=1)
    spark.range(0, 5).select("id", (F.col("id") % 3).cast("int").alias("day"), F.lit("kept").alias("city")) \
        .createOrReplaceTempView("nmbs_src")
    spark.sql(f"MERGE INTO silt.`{p}` t USING nmbs_src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET city = s.city "
              "WHEN NOT MATCHED BY SOURCE THEN DELETE")
    assert sorted(r["id"] for r in spark.read.format("silt").load(p).collect()) == [0, 1, 2, 3, 4]
