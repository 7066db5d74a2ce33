"""Delta Lake's table builders (create, createIfNotExists, replace, createOrReplace), and tables by
name with SQL that says `USING delta` and ``delta.`path` ``. Changes for Silt are marked `silt:`."""
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql.types import DateType, StringType, StructField, StructType

import silt  # silt: the session gets Silt's jar, extension and catalog
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

spark = silt.configure(SparkSession.builder.appName("builders")).getOrCreate()  # silt: instead of Delta's settings

spark.sql("DROP TABLE IF EXISTS builder_events")
table = DeltaTable.createIfNotExists(spark) \
    .tableName("builder_events") \
    .addColumn("id", "BIGINT", nullable=False) \
    .addColumn("eventType", StringType(), comment="what happened") \
    .addColumn("date", DateType()) \
    .partitionedBy("date") \
    .property("description", "table with event data") \
    .execute()
assert table.detail().first().partitionColumns == ["date"]
DeltaTable.createIfNotExists(spark).tableName("builder_events").addColumn("id", "BIGINT").execute()  # exists: no-op
assert spark.table("builder_events").columns == ["id", "eventType", "date"]

spark.sql("INSERT INTO builder_events VALUES (1, 'click', DATE'2026-11-24')")
assert spark.sql("SELECT count(*) AS n FROM builder_events").first().n == 1

# Replace the table's definition (its rows go, its history stays), clustered
DeltaTable.replace(spark).tableName("builder_events") \
    .addColumns(StructType([StructField("id", StringType()), StructField("city", StringType())])) \
    .clusterBy("id") \
    .execute()
assert spark.table("builder_events").columns == ["id", "city"]
assert spark.sql("DESCRIBE DETAIL builder_events").first().clusteringColumns == ["id"]
assert DeltaTable.forName(spark, "builder_events").history().count() == 3

# A table by path, created or replaced, and used from SQL with USING delta and delta.`path`
path = tempfile.mkdtemp(prefix="by-path-")
DeltaTable.createOrReplace(spark).location(path).addColumn("k", "INT").addColumn("v", "STRING").execute()
spark.sql(f"INSERT INTO delta.`{path}` VALUES (1, 'a'), (2, 'b')")
spark.sql(f"UPDATE delta.`{path}` SET v = 'c' WHERE k = 2")
assert sorted(tuple(r) for r in spark.read.format("delta").load(path).collect()) == [(1, "a"), (2, "c")]
assert spark.sql(f"DESCRIBE HISTORY delta.`{path}`").count() == 3

spark.sql("DROP TABLE IF EXISTS builder_ctas")
spark.sql(f"CREATE TABLE builder_ctas USING delta AS SELECT * FROM delta.`{path}` WHERE k = 1")
assert spark.sql("DESCRIBE TABLE EXTENDED builder_ctas").where("col_name = 'Provider'").first().data_type == "delta"
spark.sql("OPTIMIZE builder_ctas")
assert spark.table("builder_ctas").count() == 1
