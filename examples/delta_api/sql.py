"""Delta Lake's SQL examples, run through spark.sql: the quick start, DELETE, UPDATE and MERGE (with
NOT MATCHED BY SOURCE), VACUUM, DESCRIBE HISTORY and DETAIL, SHOW PARTITIONS, CONVERT TO DELTA,
RESTORE and SHALLOW CLONE, on path tables and catalog tables. Changes for Silt are marked `silt:`."""
import os
import tempfile

from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog

spark = silt.configure(SparkSession.builder.appName("sql")).getOrCreate()  # silt: instead of Delta's settings
root = tempfile.mkdtemp(prefix="sql-")


def ids(query):
    return sorted(r[0] for r in spark.sql(query).collect())


# Quick start
table = f"delta.`{root}/delta-table`"
spark.sql(f"CREATE TABLE {table} USING DELTA AS SELECT col1 as id FROM VALUES 0,1,2,3,4")
spark.sql(f"INSERT OVERWRITE {table} SELECT col1 as id FROM VALUES 5,6,7,8,9")
spark.sql(f"UPDATE {table} SET id = id + 100 WHERE id % 2 == 0")
spark.sql(f"DELETE FROM {table} WHERE id % 2 == 0")
spark.sql("CREATE OR REPLACE TEMP VIEW newData AS SELECT col1 AS id FROM VALUES 1,3,5,7,9,11,13,15,17,19")
spark.sql(f"""
    MERGE INTO {table} AS oldData
    USING newData
    ON oldData.id = newData.id
    WHEN MATCHED
      THEN UPDATE SET id = newData.id
    WHEN NOT MATCHED
      THEN INSERT (id) VALUES (newData.id)""")
assert ids(f"SELECT * FROM {table}") == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]
assert ids(f"SELECT * FROM {table} VERSION AS OF 0") == [0, 1, 2, 3, 4]

# DELETE, UPDATE and MERGE on a catalog table
spark.sql("DROP TABLE IF EXISTS people")
spark.sql(f"""CREATE TABLE people (id INT, firstName STRING, gender STRING, birthDate DATE)
              USING DELTA LOCATION '{root}/people'""")
spark.sql("""INSERT INTO people VALUES (1, 'Ann', 'F', DATE'1950-03-01'), (2, 'Bob', 'M', DATE'1980-07-12'),
             (3, 'Cid', 'M', DATE'1990-01-30'), (4, 'Dee', 'F', DATE'2001-11-05')""")
spark.sql("DELETE FROM people WHERE birthDate < '1955-01-01'")
spark.sql("UPDATE people SET gender = 'Female' WHERE gender = 'F'")
spark.sql(f"UPDATE delta.`{root}/people` SET gender = 'Male' WHERE gender = 'M'")
spark.sql("""CREATE OR REPLACE TEMP VIEW peopleUpdates AS SELECT * FROM VALUES
             (2, 'Bob', 'Male', DATE'1980-07-12'), (5, 'Eve', 'Female', DATE'1975-02-14')
             AS t(id, firstName, gender, birthDate)""")
spark.sql("""
    MERGE INTO people
    USING peopleUpdates
    ON people.id = peopleUpdates.id
    WHEN MATCHED THEN
      UPDATE SET *
    WHEN NOT MATCHED
      THEN INSERT *
    WHEN NOT MATCHED BY SOURCE
      THEN DELETE""")
assert [tuple(r) for r in spark.sql("SELECT id, gender FROM people ORDER BY id").collect()] == \
    [(2, "Male"), (5, "Female")]

# Utilities: history, detail, partitions, vacuum
events = f"{root}/events"
spark.sql(f"CREATE TABLE delta.`{events}` (id INT, date DATE) USING DELTA PARTITIONED BY (date)")
spark.sql(f"INSERT INTO delta.`{events}` VALUES (1, DATE'2024-01-01'), (2, DATE'2024-01-02')")
spark.sql("DROP TABLE IF EXISTS eventsTable")
spark.sql("DROP TABLE IF EXISTS inventoryTable")
spark.sql(f"CREATE TABLE eventsTable USING DELTA LOCATION '{events}'")
assert [r.operation for r in spark.sql(f"DESCRIBE HISTORY '{events}'").collect()] == ["WRITE", "CREATE TABLE"]
assert spark.sql(f"DESCRIBE HISTORY delta.`{events}` LIMIT 1").count() == 1
assert spark.sql("DESCRIBE HISTORY eventsTable").count() == 2
assert spark.sql(f"DESCRIBE DETAIL '{events}'").first().partitionColumns == ["date"]
assert spark.sql("DESCRIBE DETAIL eventsTable").first().numFiles == 2
assert sorted(str(r[0]) for r in spark.sql("SHOW PARTITIONS eventsTable").collect()) == ["2024-01-01", "2024-01-02"]
assert spark.sql(f"SHOW PARTITIONS delta.`{events}`").count() == 2
spark.sql("VACUUM eventsTable")
spark.sql("VACUUM eventsTable LITE")
spark.sql(f"VACUUM '{events}'")
spark.sql(f"VACUUM delta.`{events}` RETAIN 200 HOURS")
assert spark.sql("VACUUM eventsTable DRY RUN").count() == 0

# VACUUM with an inventory of the storage's files instead of a listing: a file no version uses,
# older than the retention, goes; the table's files and files outside the table stay.
live = spark.sql(f"SELECT input_file_name() FROM delta.`{events}`").first()[0]
orphan = os.path.join(events, "date=2024-01-01", "orphan.parquet")
with open(orphan, "wb") as f:
    f.write(b"not referenced by the log")
spark.createDataFrame([("file:" + orphan, 25, False, 0), (live, 1, False, 0), ("file:/elsewhere/x.parquet", 1, False, 0)],
                      "path string, length long, isDir boolean, modificationTime long") \
    .write.format("delta").mode("overwrite").saveAsTable("inventoryTable")
assert [r.path for r in spark.sql("VACUUM eventsTable USING INVENTORY inventoryTable DRY RUN").collect()] == ["file:" + orphan]
spark.sql("VACUUM eventsTable USING INVENTORY (select * from inventoryTable)")
assert not os.path.exists(orphan) and spark.table("eventsTable").count() == 2

# CONVERT TO DELTA
parquet = f"{root}/parquet"
spark.sql("SELECT col1 AS id, col2 AS part FROM VALUES (1, 1), (2, 2)").write.partitionBy("part").parquet(parquet)
spark.sql(f"CONVERT TO DELTA parquet.`{parquet}` NO STATISTICS PARTITIONED BY (part int)")
assert ids(f"SELECT id FROM delta.`{parquet}`") == [1, 2]

# RESTORE and SHALLOW CLONE
spark.sql(f"RESTORE TABLE {table} TO VERSION AS OF 1")
assert ids(f"SELECT * FROM {table}") == [5, 6, 7, 8, 9]
target = f"delta.`{root}/target`"
spark.sql(f"CREATE TABLE {target} SHALLOW CLONE {table}")
assert ids(f"SELECT * FROM {target}") == [5, 6, 7, 8, 9]
spark.sql("DROP TABLE IF EXISTS my_test")
spark.sql(f"CREATE TABLE my_test SHALLOW CLONE {table} VERSION AS OF 0 LOCATION '{root}/my_test'")
spark.sql("CREATE TABLE IF NOT EXISTS my_test SHALLOW CLONE people")  # no-op: the target exists
assert ids("SELECT * FROM my_test") == [0, 1, 2, 3, 4]
spark.sql("UPDATE my_test SET id = id + 10 WHERE id > 2")
assert ids(f"SELECT * FROM {table}") == [5, 6, 7, 8, 9]  # the source is untouched
assert os.path.isdir(f"{root}/my_test/_delta_log")
spark.sql("DROP TABLE my_test")
spark.sql("DROP TABLE inventoryTable")
