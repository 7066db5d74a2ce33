"""Delta Lake's table batch reads and writes from Python and SQL: create (DDL, DataFrame, partitioned,
at a location), read (by name, by path, in SQL), time travel (SQL AS OF and reader options), append,
overwrite, replaceWhere, dynamic partition and data overwrite, idempotent writes, commit metadata, schema
validation and updates (explicit and automatic), overwriteSchema, views and table properties.
Changes for Silt are marked `silt:`."""
import os
import tempfile

from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

spark = silt.configure(SparkSession.builder.appName("batch")).getOrCreate()  # silt: instead of Delta's settings
root = tempfile.mkdtemp(prefix="batch-")
for name in ("people", "people_copy", "events", "located", "students"):
    spark.sql(f"DROP TABLE IF EXISTS {name}")

# Create a table: DDL, then a DataFrame written to a name and to a path
spark.sql("""CREATE TABLE IF NOT EXISTS people (
               id INT, firstName STRING, lastName STRING, gender STRING, salary INT) USING DELTA""")
people = spark.createDataFrame([(1, "Ann", "Lee", "F", 100), (2, "Bob", "Ray", "M", 200), (3, "Cy", "Doe", "M", 300)],
                               "id INT, firstName STRING, lastName STRING, gender STRING, salary INT")
people.write.format("delta").mode("append").saveAsTable("people")
people.write.format("delta").saveAsTable("people_copy")
path = os.path.join(root, "people")
people.write.format("delta").save(path)

# Partitioned, and at a location of one's choosing
spark.sql("""CREATE TABLE events (eventId BIGINT, data STRING, eventType STRING, date DATE)
             USING DELTA PARTITIONED BY (date)""")
located = os.path.join(root, "located")
spark.sql(f"CREATE TABLE located (id INT, v STRING) USING DELTA LOCATION '{located}'")
spark.sql("INSERT INTO located VALUES (1, 'a')")
assert spark.read.format("delta").load(located).count() == 1

# Read: by name, by path, in SQL
assert spark.table("people").count() == 3
assert spark.read.format("delta").load(path).count() == 3
assert spark.sql(f"SELECT count(*) AS n FROM delta.`{path}`").first().n == 3

# Time travel: SQL AS OF and reader options
people.limit(1).write.format("delta").mode("append").save(path)  # version 1
first_commit = DeltaTable.forPath(spark, path).history().where("version = 0").first().timestamp
assert spark.sql(f"SELECT * FROM delta.`{path}` VERSION AS OF 0").count() == 3
assert spark.sql(f"SELECT * FROM delta.`{path}` TIMESTAMP AS OF '{first_commit}'").count() == 3
assert spark.read.format("delta").option("versionAsOf", 1).load(path).count() == 4
assert spark.read.format("delta").option("timestampAsOf", str(first_commit)).load(path).count() == 3
assert spark.sql("SELECT * FROM people VERSION AS OF 0").count() == 0

# Append and overwrite, in Python and SQL
people.write.format("delta").mode("append").save(path)
assert spark.read.format("delta").load(path).count() == 7
people.write.format("delta").mode("overwrite").save(path)
assert spark.read.format("delta").load(path).count() == 3
spark.sql("INSERT OVERWRITE TABLE people_copy SELECT * FROM people WHERE id > 1")
assert spark.table("people_copy").count() == 2

# replaceWhere: overwrite only the rows of some dates
days = spark.createDataFrame([(i, f"d{i}", "click", f"2024-01-0{1 + i % 3}") for i in range(9)],
                             "eventId BIGINT, data STRING, eventType STRING, date STRING") \
    .selectExpr("eventId", "data", "eventType", "CAST(date AS DATE) AS date")
days.write.format("delta").mode("append").saveAsTable("events")
replacement = spark.createDataFrame([(100, "new", "view", "2024-01-02")],
                                    "eventId BIGINT, data STRING, eventType STRING, date STRING") \
    .selectExpr("eventId", "data", "eventType", "CAST(date AS DATE) AS date")
replacement.write.format("delta").mode("overwrite") \
    .option("replaceWhere", "date >= '2024-01-02' AND date < '2024-01-03'").saveAsTable("events")
by_day = {r.date.day: r.n for r in spark.sql("SELECT date, count(*) AS n FROM events GROUP BY date").collect()}
assert by_day == {1: 3, 2: 1, 3: 3}, by_day

# Dynamic partition overwrite: only the dates the data has
replacement.write.format("delta").mode("overwrite").option("partitionOverwriteMode", "dynamic").saveAsTable("events")
assert spark.table("events").count() == 7

# Dynamic data overwrite (Delta Lake 4.3): replace the rows whose country matches a new row's
spark.createDataFrame([("Dylan", "US"), ("Doug", "UK"), ("Julia", "IT"), ("Adam", None)], "name STRING, country STRING") \
    .write.format("delta").option("delta.enableDeletionVectors", "true").saveAsTable("students")
new_students = spark.createDataFrame([("Peter", "FR"), ("Jennie", "UK"), ("Eva", None)], "name STRING, country STRING")
new_students.write.format("delta").mode("overwrite").option("replaceUsing", "country").saveAsTable("students")
assert sorted(r.name for r in spark.table("students").collect()) == ["Adam", "Dylan", "Eva", "Jennie", "Julia", "Peter"]

# Rows per file, idempotent writes, commit metadata
people.write.format("delta").mode("overwrite").option("maxRecordsPerFile", 1).save(path)
assert len(DeltaTable.forPath(spark, path).detail().first().asDict()["location"]) > 0
assert DeltaTable.forPath(spark, path).detail().first().numFiles == 3
for _ in range(2):  # a restarted job writes the same batch again: the second write is skipped
    people.write.format("delta").mode("append").option("txnAppId", "dailyETL").option("txnVersion", 23423).save(path)
assert spark.read.format("delta").load(path).count() == 6
people.write.format("delta").mode("overwrite").option("userMetadata", "overwritten-for-fixing-incorrect-data").save(path)
assert DeltaTable.forPath(spark, path).history(1).first().userMetadata == "overwritten-for-fixing-incorrect-data"
spark.conf.set("spark.databricks.delta.commitInfo.userMetadata", "from-the-session")
spark.sql("INSERT OVERWRITE people_copy SELECT * FROM people")
spark.conf.unset("spark.databricks.delta.commitInfo.userMetadata")
assert DeltaTable.forName(spark, "people_copy").history(1).first().userMetadata == "from-the-session"

# Schema validation: a column the table lacks is refused, and nothing is written
try:
    people.withColumn("bonus", people.salary).write.format("delta").mode("append").save(path)
    raise AssertionError("a write with a new column was accepted")
except AssertionError:
    raise
except Exception:
    pass
assert spark.read.format("delta").load(path).count() == 3

# Explicit schema updates
spark.sql("ALTER TABLE people ADD COLUMNS (middleName STRING COMMENT 'second name' AFTER firstName)")
spark.sql("ALTER TABLE people ALTER COLUMN salary COMMENT 'yearly'")
spark.sql("ALTER TABLE people ALTER COLUMN gender FIRST")
assert spark.table("people").columns == ["gender", "id", "firstName", "middleName", "lastName", "salary"]
spark.sql("""ALTER TABLE people SET TBLPROPERTIES (
               'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5', 'delta.columnMapping.mode' = 'name')""")
spark.sql("ALTER TABLE people RENAME COLUMN lastName TO surname")
spark.sql("ALTER TABLE people DROP COLUMN middleName")
assert spark.table("people").columns == ["gender", "id", "firstName", "surname", "salary"]

# Automatic schema update: mergeSchema adds the new column; overwriteSchema replaces the schema
people.withColumn("bonus", people.salary / 10).write.format("delta").mode("append") \
    .option("mergeSchema", "true").save(path)
assert "bonus" in spark.read.format("delta").load(path).columns
spark.range(2).write.format("delta").mode("overwrite").option("overwriteSchema", "true").save(path)
assert spark.read.format("delta").load(path).columns == ["id"]

# Views on tables, and table properties
spark.sql("CREATE OR REPLACE TEMP VIEW well_paid AS SELECT * FROM people WHERE salary > 150")
assert spark.table("well_paid").count() == 2
spark.sql("ALTER TABLE people SET TBLPROPERTIES ('department' = 'accounting', 'delta.appendOnly' = 'true')")
properties = {r.key: r.value for r in spark.sql("SHOW TBLPROPERTIES people").collect()}
assert properties["department"] == "accounting" and properties["delta.appendOnly"] == "true"
try:
    spark.sql("DELETE FROM people WHERE id = 1")
    raise AssertionError("a DELETE on an append-only table was accepted")
except AssertionError:
    raise
except Exception:
    pass
assert spark.table("people").count() == 3

# Table metadata
assert spark.sql("DESCRIBE DETAIL people").first().format == "delta"
assert [r.operation for r in spark.sql("DESCRIBE HISTORY people").collect()][-1] == "CREATE TABLE"

# Clean up (the tables are managed, so their files go too)
spark.catalog.dropTempView("well_paid")
for name in ("people", "people_copy", "events", "located", "students"):
    spark.sql(f"DROP TABLE IF EXISTS {name}")
