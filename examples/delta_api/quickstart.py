"""Delta Lake's quickstart: create a table, read it, overwrite, conditional update without
overwrite (update, delete, merge), time travel. Two changes for Silt, marked `silt:`."""
import tempfile

import pyspark
from pyspark.sql.functions import col, expr

from silt.delta import configure_spark_with_delta_pip  # silt: was `from delta import configure_spark_with_delta_pip`
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

builder = pyspark.sql.SparkSession.builder.appName("MyApp")  # silt: no Delta extension / catalog settings
spark = configure_spark_with_delta_pip(builder).getOrCreate()

path = tempfile.mkdtemp(prefix="delta-table-")

# Create a table
data = spark.range(0, 5)
data.write.format("delta").mode("overwrite").save(path)

# Read data
df = spark.read.format("delta").load(path)
assert sorted(r.id for r in df.collect()) == [0, 1, 2, 3, 4]

# Update table data
data = spark.range(5, 10)
data.write.format("delta").mode("overwrite").save(path)

deltaTable = DeltaTable.forPath(spark, path)

# Update every even value by adding 100 to it
deltaTable.update(condition=expr("id % 2 == 0"), set={"id": expr("id + 100")})

# Delete every even value
deltaTable.delete(condition=expr("id % 2 == 0"))

# Upsert (merge) new data
newData = spark.range(0, 20)

deltaTable.alias("oldData") \
    .merge(newData.alias("newData"), "oldData.id = newData.id") \
    .whenMatchedUpdate(set={"id": col("newData.id")}) \
    .whenNotMatchedInsert(values={"id": col("newData.id")}) \
    .execute()

deltaTable.toDF().show()
assert sorted(r.id for r in deltaTable.toDF().collect()) == list(range(20))

# Read older versions of data using time travel
df = spark.read.format("delta").option("versionAsOf", 0).load(path)
assert sorted(r.id for r in df.collect()) == [0, 1, 2, 3, 4]

history = deltaTable.history()
assert [r.version for r in history.select("version").collect()] == [4, 3, 2, 1, 0]
assert [r.operation for r in history.select("operation").collect()][:3] == ["MERGE", "DELETE", "UPDATE"]
