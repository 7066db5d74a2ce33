"""Delta Lake's table utility commands from Python: history, detail, vacuum, restore, optimize
(compaction, Z-order), protocol upgrades, isDeltaTable, and the exceptions to catch. Changes
for Silt are marked `silt:`."""
import tempfile

from pyspark.sql import SparkSession

import silt  # silt: the session gets Silt's jar, extension and catalog
from silt.delta.exceptions import ConcurrentAppendException, DeltaConcurrentModificationException  # silt: was delta.exceptions
from silt.delta.tables import DeltaTable  # silt: was `from delta.tables import DeltaTable`

spark = silt.configure(SparkSession.builder.appName("utilities")).getOrCreate()  # silt: instead of Delta's settings
path = tempfile.mkdtemp(prefix="events-")

events = spark.range(0, 1000).selectExpr("id", "CAST(id % 3 AS STRING) AS eventType",
                                         "CAST(id % 2 AS INT) AS date")
events.repartition(8).write.format("delta").partitionBy("date").save(path)
for i in range(3):
    spark.range(1000 + i * 10, 1010 + i * 10).selectExpr("id", "'x' AS eventType", "0 AS date") \
        .write.format("delta").mode("append").save(path)

assert DeltaTable.isDeltaTable(spark, path)
assert not DeltaTable.isDeltaTable(spark, tempfile.mkdtemp())

deltaTable = DeltaTable.forPath(spark, path)
lastOperationDF = deltaTable.history(1)
assert lastOperationDF.first().operation == "WRITE"
fullHistoryDF = deltaTable.history()
assert fullHistoryDF.count() == 4

detailDF = deltaTable.detail()
assert detailDF.first().partitionColumns == ["date"]

# Compaction, then Z-order of one partition
metrics = deltaTable.optimize().executeCompaction().first().metrics
assert metrics.numFilesAdded >= 1 and metrics.numFilesRemoved > metrics.numFilesAdded
deltaTable.optimize().where("date = 0").executeZOrderBy("eventType")
assert deltaTable.toDF().count() == 1030

# Restore, then vacuum with the default retention (nothing is old enough yet)
deltaTable.restoreToVersion(0)
assert deltaTable.toDF().count() == 1000
deltaTable.vacuum()

# Protocol upgrades
deltaTable.upgradeTableProtocol(1, 3)
deltaTable.addFeatureSupport("deletionVectors")
detail = deltaTable.detail().first()
assert (detail.minReaderVersion, detail.minWriterVersion) == (3, 7)
assert "deletionVectors" in detail.tableFeatures

# The concurrent-commit errors keep Delta Lake's names (on Silt each is also a DeltaConcurrentModificationException)
assert all(issubclass(e, Exception) for e in (ConcurrentAppendException, DeltaConcurrentModificationException))
