"""Delta Lake's "Upsert into a table using merge" examples: an upsert with aliases, conditional
delete, WHEN NOT MATCHED BY SOURCE, and schema evolution. Changes for Silt are marked `silt:`."""
import tempfile

from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

spark = silt.configure(SparkSession.builder.appName("merge")).getOrCreate()  # silt: instead of Delta's settings
path = tempfile.mkdtemp(prefix="people-")

spark.createDataFrame([(1, "Alice", "NYC"), (2, "Bob", "LA"), (3, "Carol", "SF")], ["id", "name", "city"]) \
    .write.format("delta").save(path)
people = DeltaTable.forPath(spark, path)


def table():
    """The table read anew: delta-spark's people.toDF() may give its first call's rows again (delta-io/delta#152)."""
    return spark.read.format("delta").load(path)


updates = spark.createDataFrame([(2, "Bob", "Boston", False), (3, "Carol", "SF", True), (4, "Dan", "Austin", False)],
                                ["id", "name", "city", "deleted"])

metrics = people.alias("people") \
    .merge(updates.alias("updates"), "people.id = updates.id") \
    .whenMatchedDelete(condition="updates.deleted = true") \
    .whenMatchedUpdate(set={"city": "updates.city"}) \
    .whenNotMatchedInsert(values={"id": "updates.id", "name": "updates.name", "city": "updates.city"}) \
    .execute().first()
assert (metrics.num_updated_rows, metrics.num_deleted_rows, metrics.num_inserted_rows) == (1, 1, 1)
assert sorted(tuple(r) for r in table().collect()) == [(1, "Alice", "NYC"), (2, "Bob", "Boston"),
                                                           (4, "Dan", "Austin")]

# Rows of the target that the source no longer has
snapshot = spark.createDataFrame([(1, "Alice", "NYC"), (4, "Dan", "Denver")], ["id", "name", "city"])
people.alias("t").merge(snapshot.alias("s"), "t.id = s.id") \
    .whenMatchedUpdateAll() \
    .whenNotMatchedInsertAll() \
    .whenNotMatchedBySourceDelete() \
    .execute()
assert sorted(tuple(r) for r in table().collect()) == [(1, "Alice", "NYC"), (4, "Dan", "Denver")]

# Schema evolution: the source's new column is added to the table
extra = spark.createDataFrame([(5, "Eve", "Paris", "eve@example.com")], ["id", "name", "city", "email"])
people.alias("t").merge(extra.alias("s"), "t.id = s.id") \
    .withSchemaEvolution() \
    .whenNotMatchedInsertAll() \
    .execute()
assert table().columns == ["id", "name", "city", "email"]
assert table().where("id = 5").first().email == "eve@example.com"
