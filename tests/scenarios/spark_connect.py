"""Runs the SiltTable and DeltaTable APIs against a Spark Connect server and prints what it saw as
JSON: the Python layer must work over Connect too. The server is a local one pyspark starts with
Silt's settings, or the one at env SILT_CONNECT_URL (then this may run with pyspark-client only)."""
import json
import os
import sys
import tempfile

from pyspark.sql import SparkSession

import silt
from silt.delta.tables import DeltaTable
from silt.table import SiltTable

if os.environ.get("SILT_CONNECT_URL"):  # a server started with Silt (tests/scenarios/connect_server.py)
    spark = SparkSession.builder.remote(os.environ["SILT_CONNECT_URL"]).getOrCreate()
else:  # a local server that pyspark starts, given Silt's settings
    spark = silt.configure(SparkSession.builder.remote("local[2]")
                           .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")).getOrCreate()
assert "connect" in type(spark).__module__, type(spark)
path = tempfile.mkdtemp() + "/t"
spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING) USING silt TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
spark.range(0, 100).selectExpr("id", "cast(id % 3 as string) AS v").write.format("silt").mode("append").save(path)
t = SiltTable.for_path(spark, path)
t.delete("id < 10")
t.update("id = 50", {"v": "'fifty'"})
src = spark.range(95, 105).selectExpr("id", "'src' AS v")
t.merge(src, "target.id = source.id").when_matched_update_all().when_not_matched_insert_all().execute()
t.optimize().execute_zorder_by("id")
# Delta Lake's API over Connect: the source's alias is found in the client's plan
dt = DeltaTable.forPath(spark, path)
upd = spark.range(0, 20).selectExpr("id", "'delta' AS v")
dt.alias("t").merge(upd.alias("s").where("id >= 15"), "t.id = s.id").whenMatchedUpdate(set={"v": "s.v"}).execute()
dt.update("id = 19", {"v": "'nineteen'"})
try:
    SiltTable.for_path(spark, path + "_nothing")
    error = None
except silt.NotADeltaTableException as e:
    error = type(e).__name__
out = {
    "rows": t.to_df().count(),
    "fifty": t.to_df().where("id = 50").first()["v"],
    "src": t.to_df().where("v = 'src'").count(),
    "history": [r["operation"] for r in t.history().collect()],
    "error": error,
    "delta_api": sorted((r["id"], r["v"]) for r in dt.toDF().where("v IN ('delta', 'nineteen')").collect()),
}
print(json.dumps(out))
spark.stop()
sys.exit(0)
