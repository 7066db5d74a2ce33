"""Filters on the column a generated partition column comes from prune partitions, as Delta derives
them (the shapes and their soundness are GeneratedPartitionFiltersSpec's; here, end to end)."""
from conftest import files_scanned
from test_table_features import GENERATED


def test_filters_on_the_source_column_prune_generated_partitions(spark, tmp_path):
    p = str(tmp_path / "pruned")
    spark.sql(f"CREATE TABLE silt.`{p}` {GENERATED} USING silt PARTITIONED BY (d)")
    spark.sql(f"INSERT INTO silt.`{p}` (id, ts) SELECT CAST(id AS INT), "
              "CAST(DATE'2024-01-01' + CAST(id AS INT) AS TIMESTAMP) + INTERVAL 6 HOURS FROM range(10)")
    df = spark.read.format("silt").load(p)
    spark.conf.set("spark.silt.stats.skipping.enabled", "false")  # partitions alone (statistics would skip too)
    try:
        for where, files, count in [("ts > TIMESTAMP'2024-01-08 00:00:00'", 3, 3),
                                    ("ts >= TIMESTAMP'2024-01-08 06:00:00'", 3, 3),
                                    ("ts < TIMESTAMP'2024-01-03 00:00:00'", 3, 2),  # 01-03 may hold such a ts
                                    ("ts = TIMESTAMP'2024-01-05 06:00:00'", 1, 1),
                                    ("TIMESTAMP'2024-01-09 00:00:00' < ts", 2, 2),
                                    ("id > 100", 10, 0)]:  # a filter on another column derives nothing
            q = df.where(where)
            assert (files_scanned(spark, q), q.count()) == (files, count), where
        # year, month and day partitions of one column are compared together; IN carries over
        ymd = str(tmp_path / "ymd")
        spark.sql(f"CREATE TABLE silt.`{ymd}` (ts TIMESTAMP, y INT GENERATED ALWAYS AS (year(ts)), "
                  "m INT GENERATED ALWAYS AS (month(ts)), d INT GENERATED ALWAYS AS (day(ts))) USING silt PARTITIONED BY (y, m, d)")
        spark.sql(f"INSERT INTO silt.`{ymd}` (ts) SELECT TIMESTAMP'2023-12-30 06:00:00' + make_interval(0, 0, 0, CAST(id AS INT)) "
                  "FROM range(6)")  # 2023-12-30 to 2024-01-04, a file each
        df = spark.read.format("silt").load(ymd)
        for where, files in [("ts >= TIMESTAMP'2024-01-02 00:00:00'", 3), ("ts < TIMESTAMP'2023-12-31 12:00:00'", 2),
                             ("ts IN (TIMESTAMP'2024-01-01 06:00:00', TIMESTAMP'2023-12-30 06:00:00')", 2)]:
            assert files_scanned(spark, df.where(where)) == files, where
    finally:
        spark.conf.unset("spark.silt.stats.skipping.enabled")
