"""Runs the Column programs of column_programs.py over Spark Connect and prints, as JSON, the rows each
left and the exception type each wrong call raised: the classic run's must be the same. The server
is a local one pyspark starts with Silt's settings, or the one at env SILT_CONNECT_URL."""
import json
import os
import sys
import tempfile
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import silt
from silt.delta.tables import DeltaTable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/, for a client run without it on the path
from scenarios.column_programs import CATCH, PROGRAMS, SETUP, WRONG_CALLS  # noqa: E402

if os.environ.get("SILT_CONNECT_URL"):
    spark = SparkSession.builder.remote(os.environ["SILT_CONNECT_URL"]).getOrCreate()
else:
    spark = silt.configure(SparkSession.builder.remote("local[2]")
                           .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")).getOrCreate()
assert "connect" in type(spark).__module__, type(spark)
root = tempfile.mkdtemp()
rows, errors = {}, {}
for name, program in PROGRAMS.items():
    path = f"{root}/{name}"
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(SETUP.format(path=path) + "result = " + program.strip(), scope)
    rows[name] = sorted(list(r) for r in spark.read.format("delta").load(path).collect())
    if name == "merge_columns":
        m = scope["result"].first().asDict()
        rows["merge_columns_metrics"] = [m["num_updated_rows"], m["num_inserted_rows"], m["num_deleted_rows"]]
for i, call in enumerate(WRONG_CALLS):
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(SETUP.format(path=f"{root}/wrong{i}") + CATCH.format(call=call), scope)
    errors[call] = scope["result"]
print(json.dumps({"rows": rows, "errors": errors}))
spark.stop()
sys.exit(0)
