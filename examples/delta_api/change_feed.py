"""Delta Lake's change data feed from Python and SQL: turned on for a new table, an existing table
and every new table of a session; read in batch by version and by timestamp, by name and by path,
and with SQL's table_changes. Changes for Silt are marked `silt:`."""
import os
import tempfile

from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

spark = silt.configure(SparkSession.builder.appName("change-feed")).getOrCreate()  # silt: instead of Delta's settings
root = tempfile.mkdtemp(prefix="cdf-")
for name in ("student", "defaults_on"):
    spark.sql(f"DROP TABLE IF EXISTS {name}")

# A new table with the feed on; an insert, an update and a delete
spark.sql("CREATE TABLE student (id INT, name STRING, age INT) USING delta TBLPROPERTIES (delta.enableChangeDataFeed = true)")
spark.sql("INSERT INTO student VALUES (1, 'Ann', 20), (2, 'Bob', 21), (3, 'Cy', 22)")  # version 1
spark.sql("UPDATE student SET age = age + 1 WHERE id = 2")  # version 2
spark.sql("DELETE FROM student WHERE id = 3")  # version 3


def kinds(df):
    return sorted((r._change_type, r.id, r._commit_version) for r in df.collect())


# By version, from 0 to past the latest
all_changes = spark.read.format("delta").option("readChangeFeed", "true") \
    .option("startingVersion", 0).option("endingVersion", 10).table("student")
assert kinds(all_changes) == [("delete", 3, 3), ("insert", 1, 1), ("insert", 2, 1), ("insert", 3, 1),
                              ("update_postimage", 2, 2), ("update_preimage", 2, 2)], kinds(all_changes)
assert set(all_changes.columns) >= {"_change_type", "_commit_version", "_commit_timestamp"}
# From a version on
assert len(kinds(spark.read.format("delta").option("readChangeFeed", "true")
                 .option("startingVersion", 2).table("student"))) == 3
# By timestamp: from the UPDATE's commit to the DELETE's
history = {r.version: r.timestamp for r in DeltaTable.forName(spark, "student").history().collect()}
by_time = spark.read.format("delta").option("readChangeFeed", "true") \
    .option("startingTimestamp", str(history[2])).option("endingTimestamp", str(history[3])).table("student")
assert [k for k, _, _ in kinds(by_time)] == ["delete", "update_postimage", "update_preimage"]
# In SQL
assert len(kinds(spark.sql("SELECT * FROM table_changes('student', 0, 10)"))) == 6
assert len(kinds(spark.sql("SELECT * FROM table_changes('student', 2)"))) == 3
assert len(kinds(spark.sql(f"SELECT * FROM table_changes('student', '{history[1]}', '{history[1]}')"))) == 3

# An existing table, by path: only changes after the feed was turned on are there
path = os.path.join(root, "accounts")
spark.range(0, 5).selectExpr("id", "id * 10 AS balance").write.format("delta").save(path)  # version 0
spark.sql(f"ALTER TABLE delta.`{path}` SET TBLPROPERTIES (delta.enableChangeDataFeed = true)")  # version 1
accounts = DeltaTable.forPath(spark, path)
accounts.alias("t").merge(spark.range(3, 7).selectExpr("id", "-1 AS balance").alias("s"), "t.id = s.id") \
    .whenMatchedUpdateAll().whenNotMatchedInsertAll().execute()  # version 2
merged = spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 2).load(path)
assert sorted(r._change_type for r in merged.collect()) == \
    ["insert", "insert", "update_postimage", "update_postimage", "update_preimage", "update_preimage"]
assert len(kinds(spark.sql(f"SELECT * FROM table_changes_by_path('{path}', 2)"))) == 6
try:  # version 0 was written before the feed was on
    spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 0).load(path).collect()
    raise AssertionError("changes of a version without the feed were read")
except AssertionError:
    raise
except Exception:
    pass

# Every new table of the session
spark.sql("SET spark.databricks.delta.properties.defaults.enableChangeDataFeed = true")
spark.sql("CREATE TABLE defaults_on (id INT) USING delta")
spark.conf.unset("spark.databricks.delta.properties.defaults.enableChangeDataFeed")
properties = {r.key: r.value for r in spark.sql("SHOW TBLPROPERTIES defaults_on").collect()}
assert properties["delta.enableChangeDataFeed"] == "true", properties

for name in ("student", "defaults_on"):
    spark.sql(f"DROP TABLE IF EXISTS {name}")
