"""The reference Delta Lake (delta-spark from Maven Central) in a process of its own.

Silt's tests run Silt in their own SparkSession; the reference Delta Lake registers the same
`spark_catalog` and its own SQL extension, so it gets a separate Python process and JVM.
One call does a whole list of operations, so that the JVM (and the Ivy resolution) is paid
for once per test module:

    python reference_delta.py '{"canon": "/path/to/canon.py",
                                "ops": [{"op": "read", "path": "/t", "version": 0},
                                        {"op": "write_dataset", "path": "/u"}]}'

Operations:
  read           {"path", "version"?: int}  -> {"columns", "num_rows", "rows", "digest"}
                 rows rendered with the conformance corpus' canon.py, in the table's column order
  write_dataset  {"path"}  writes tests/interop/dataset.py's three commits with format("delta")
  history        {"path"}  -> {"versions", "operations", "timestamps" (epoch ms)}: lists from DESCRIBE HISTORY
  sql            {"statements": [...]}  runs each statement (e.g. to write a table with DVs)
  query          {"sql"}  -> {"rows": [[...], ...]}: the query's rows, each value as str() (None stays null)
  write          {"path", "query", "mode"?, "options"?: {}, "partitionBy"?: [...]}  writes the rows of a
                 SQL query with df.write.format("delta") (e.g. dynamic overwrite, txnAppId, dataChange)
  changes        {"path", "start": int, "end"?: int, "columns": [...]}  -> {"rows": [[...], ...]}: the change
                 data feed (readChangeFeed) as lists of the named columns, values as strings
  stream         {"source", "target", "checkpoint"}  streams the source table into the target (format delta,
                 Trigger.AvailableNow, a file a micro-batch) -> {"batches": n}
  detail         {"path"}  -> DESCRIBE DETAIL's clusteringColumns, tableFeatures, numFiles
  upsert_race    {"folder"}  two MERGEs of one new key, the first held until the second commits
                 (upsert_race.py) -> {"error", "rows_with_key", "values"}

Each operation's result (or its error, as {"ok": false, "error": "..."}) is collected, and one
line `@@RESULT@@ <json>` with {"results": [...]} is printed on stdout at the end; Spark's and
Ivy's chatter goes to stderr.
"""
import importlib.util
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# The reference Delta Lake release for each Spark minor (Delta 4.4 is built for Spark 4.0, 4.1 and 4.2).
REFERENCE_FOR_SPARK = {
    "4.0": "io.delta:delta-spark_4.0_2.13:4.4.0",
    "4.1": "io.delta:delta-spark_4.1_2.13:4.4.0",
    "4.2": "io.delta:delta-spark_2.13:4.4.0",
}


def _reference_package():
    """The reference for the installed pyspark's minor (env SILT_REFERENCE_DELTA_PACKAGE overrides), or None."""
    if os.environ.get("SILT_REFERENCE_DELTA_PACKAGE"):
        return os.environ["SILT_REFERENCE_DELTA_PACKAGE"]
    import pyspark
    return REFERENCE_FOR_SPARK.get(".".join(pyspark.__version__.split(".")[:2]))


DELTA_PACKAGE = _reference_package()
RESULT_MARKER = "@@RESULT@@ "


def load_canon(path):
    spec = importlib.util.spec_from_file_location("conformance_canon", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_spark():
    from pyspark.sql import SparkSession
    return (SparkSession.builder.master("local[2]")
            .appName("silt-reference-delta")
            .config("spark.jars.packages", DELTA_PACKAGE)
            .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
            .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.databricks.delta.snapshotPartitions", "2")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.warehouse.dir", os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                            f"silt-refdelta-wh-{os.getpid()}"))
            .getOrCreate())


def op_read(spark, canon, op):
    reader = spark.read.format("delta")
    if op.get("version") is not None:
        reader = reader.option("versionAsOf", int(op["version"]))
    df = reader.load(op["path"])
    columns = list(df.columns)
    table = df.toArrow()
    rows, _ = canon.render_table(table, columns)
    return {"columns": columns, "num_rows": table.num_rows, "rows": rows,
            "digest": canon.digest(rows), "arrow_types": {f.name: str(f.type) for f in table.schema}}


def op_write_dataset(spark, canon, op):
    import dataset
    path = op["path"]
    w = lambda rows: dataset.spark_df(spark, rows).write.format("delta").partitionBy(*dataset.PARTITION_BY)
    w(dataset.BATCHES[0]).mode("append").save(path)
    w(dataset.BATCHES[1]).mode("append").save(path)
    w(dataset.BATCHES[2]).mode("overwrite").option("replaceWhere", dataset.REPLACE_WHERE).save(path)
    return {}


def op_history(spark, canon, op):
    rows = spark.sql(f"DESCRIBE HISTORY delta.`{op['path']}`").orderBy("version").collect()
    return {"versions": [r["version"] for r in rows], "operations": [r["operation"] for r in rows],
            "timestamps": [round(r["timestamp"].timestamp() * 1000) for r in rows]}


def op_sql(spark, canon, op):
    for statement in op["statements"]:
        spark.sql(statement).collect()
    return {}


def op_query(spark, canon, op):
    return {"rows": [[None if v is None else str(v) for v in r] for r in spark.sql(op["sql"]).collect()]}


def op_write(spark, canon, op):
    w = spark.sql(op["query"]).write.format("delta").mode(op.get("mode", "append"))
    for k, v in op.get("options", {}).items():
        w = w.option(k, v)
    if op.get("partitionBy"):
        w = w.partitionBy(*op["partitionBy"])
    w.save(op["path"])
    return {}


def op_changes(spark, canon, op):
    reader = spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", op["start"])
    if op.get("end") is not None:
        reader = reader.option("endingVersion", op["end"])
    rows = reader.load(op["path"]).select(*op["columns"]).collect()
    return {"rows": [[None if v is None else str(v) for v in r] for r in rows]}


def op_stream(spark, canon, op):
    query = (spark.readStream.format("delta").option("maxFilesPerTrigger", 1).load(op["source"])
             .writeStream.format("delta").option("checkpointLocation", op["checkpoint"])
             .trigger(availableNow=True).start(op["target"]))
    query.awaitTermination()
    return {"batches": len([p for p in query.recentProgress if p["numInputRows"]])}


def op_detail(spark, canon, op):
    d = spark.sql(f"DESCRIBE DETAIL delta.`{op['path']}`").first()
    return {"clusteringColumns": list(d["clusteringColumns"]), "tableFeatures": list(d["tableFeatures"]),
            "numFiles": d["numFiles"]}


def op_upsert_race(spark, canon, op):
    import upsert_race
    return upsert_race.race(spark, "delta", op["folder"])


OPS = {"detail": op_detail, "changes": op_changes, "stream": op_stream, "upsert_race": op_upsert_race, "read": op_read, "write_dataset": op_write_dataset, "history": op_history, "sql": op_sql, "query": op_query, "write": op_write}


def call(ops, canon_path, timeout_s, env=None):
    """Runs `ops` in one reference-Delta subprocess (this file) and returns their results in order."""
    import subprocess
    cmd = [sys.executable, os.path.abspath(__file__), json.dumps({"canon": str(canon_path), "ops": ops})]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout_s)
    lines = [line for line in proc.stdout.splitlines() if line.startswith(RESULT_MARKER)]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"reference Delta subprocess failed (exit {proc.returncode}):\n"
                           f"stdout tail: {proc.stdout[-2000:]}\nstderr tail: {proc.stderr[-6000:]}")
    return json.loads(lines[-1][len(RESULT_MARKER):])["results"]


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    cmd = json.loads(argv[1])
    canon = load_canon(cmd["canon"])
    spark = build_spark()
    results = []
    try:
        for op in cmd["ops"]:
            try:
                res = OPS[op["op"]](spark, canon, op)
                res.update(ok=True)
            except Exception as e:  # reported to the test, which decides what it means
                traceback.print_exc(file=sys.stderr)
                res = {"ok": False, "error": f"{type(e).__name__}: {e}"[:4000]}
            res["op"] = op
            results.append(res)
    finally:
        spark.stop()
    sys.stdout.write(RESULT_MARKER + json.dumps({"results": results}) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
