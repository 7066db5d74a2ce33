"""SHOW PARTITIONS of Silt's tables, as Delta Lake answers it: a row a partition holding live files,
in the partition columns and their types, filtered by a PARTITION spec; its errors carry Delta
Lake's classes. The same program runs on the reference Delta Lake (second tier)."""
import pytest

from silt.errors import InvalidTableOperationException, reraise
from test_interop import result_on_reference, result_on_silt

PROGRAM = """
spark.sql(f"DROP TABLE IF EXISTS ev")
spark.sql(f"CREATE TABLE ev (id INT, date DATE, c STRING) USING delta PARTITIONED BY (date, c) LOCATION '{root}/ev'")
spark.sql("INSERT INTO ev VALUES (1, DATE'2024-01-01', 'a'), (2, DATE'2024-01-02', NULL), "
          "(3, DATE'2024-01-01', 'b'), (4, DATE'2024-01-01', 'a')")
spark.sql("DELETE FROM ev WHERE id = 3")  # its partition holds no live file any more
out = []
for q in ["SHOW PARTITIONS ev", "SHOW PARTITIONS ev PARTITION (date = '2024-01-01')",
          "SHOW PARTITIONS ev PARTITION (c = 'a')", "SHOW PARTITIONS ev PARTITION (c = 'zz')",
          f"SHOW PARTITIONS delta.`{root}/ev`", "SHOW PARTITIONS ev PARTITION (date = '2024-01-01', c = 'a')"]:
    df = spark.sql(q)
    out.append((df.schema.simpleString(), sorted(tuple(map(str, r)) for r in df.collect())))
spark.sql("DROP TABLE ev")
result = out
"""

EXPECTED = [
    ("struct<date:date,c:string>", [("2024-01-01", "a"), ("2024-01-02", "None")]),
    ("struct<date:date,c:string>", [("2024-01-01", "a")]),
    ("struct<date:date,c:string>", [("2024-01-01", "a")]),
    ("struct<date:date,c:string>", []),
    ("struct<date:date,c:string>", [("2024-01-01", "a"), ("2024-01-02", "None")]),
    ("struct<date:date,c:string>", [("2024-01-01", "a")]),
]


@pytest.mark.smoke
def test_show_partitions_lists_the_partitions_with_live_files(spark, tmp_path):
    assert result_on_silt(spark, PROGRAM, root=str(tmp_path)) == EXPECTED


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_reference_shows_the_same_partitions(tmp_path):
    assert result_on_reference(PROGRAM, root=str(tmp_path)) == EXPECTED


def test_show_partitions_refuses_what_delta_lake_refuses(spark, tmp_path):
    plain, parted = str(tmp_path / "plain"), str(tmp_path / "parted")
    spark.range(3).write.format("delta").save(plain)
    spark.range(3).selectExpr("id", "id % 2 AS p").write.format("delta").partitionBy("p").save(parted)
    with pytest.raises(InvalidTableOperationException, match="not partitioned") as e:
        reraise(lambda: spark.sql(f"SHOW PARTITIONS delta.`{plain}`").collect())
    assert (e.value.getCondition(), e.value.getSqlState()) == ("DELTA_SHOW_PARTITION_IN_NON_PARTITIONED_TABLE", "42809")
    with pytest.raises(InvalidTableOperationException, match=r"\[id\].*partition columns: p") as e:
        reraise(lambda: spark.sql(f"SHOW PARTITIONS delta.`{parted}` PARTITION (id = 1)").collect())
    assert (e.value.getCondition(), e.value.getSqlState()) == ("DELTA_SHOW_PARTITION_IN_NON_PARTITIONED_COLUMN", "42P10")
    assert [r.p for r in spark.sql(f"SHOW PARTITIONS delta.`{parted}` PARTITION (p = 1)").collect()] == [1]
    with pytest.raises(InvalidTableOperationException, match="p = 'x'"):
        reraise(lambda: spark.sql(f"SHOW PARTITIONS delta.`{parted}` PARTITION (p = 'x')").collect())
