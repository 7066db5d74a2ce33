"""The reference Delta Lake (delta-spark from Maven Central) in a process of its own.

Silt's tests run Silt in their own SparkSession; the reference Delta Lake registers the same
`spark_catalog` and its own SQL extension, so it gets a separate Python process and JVM.
That process serves the whole test run (its start, ~20 s, is paid once, not once per call):
`call()` sends it one request a line on stdin and reads one result line back. Before each
request the session is put back as it started (settings reset, tables, views and databases
dropped, Delta's log cache cleared), so that no call sees what an earlier one left.

    python reference_delta.py --serve     # requests on stdin, one JSON a line:
        {"canon": "/path/to/canon.py", "ops": [{"op": "read", "path": "/t", "version": 0},
                                               {"op": "write_dataset", "path": "/u"}]}

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
  api            {"code"}  runs Python code with `spark`, delta-spark's `DeltaTable` and
                 `F` (pyspark.sql.functions) -> {"result": the code's `result` variable, as repr()}
  settings       {"prefixes": [...]}  -> {"settings": {key: default}}: every session setting the reference
                 registers under those prefixes (its DeltaSQLConf), with the default as Spark renders it
  table_properties  {}  -> {"properties": {key: {"default", "help", "userConfigurable"}}}: every table property
                 the reference declares (its DeltaConfigs), key as Delta spells it
  upsert_race    {"folder"}  two MERGEs of one new key, the first held until the second commits
                 (upsert_race.py) -> {"error", "rows_with_key", "values"}

Each operation's result (or its error, as {"ok": false, "error": "..."}) is collected, and one
line `@@RESULT@@ <json>` with {"results": [...]} is printed on stdout per request; Spark's and
Ivy's chatter goes to stderr (a log file the client shows when the server fails).
"""
import importlib.util
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

# The reference Delta Lake release for each Spark minor (Delta 4.4 is built for Spark 4.0, 4.1 and 4.2;
# Delta 3.3, the last for Spark 3.5, for Scala 2.12 as pyspark 3.5 is).
REFERENCE_FOR_SPARK = {
    "3.5": "io.delta:delta-spark_2.12:3.3.2",
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
            # VACUUM lists the table with this many tasks (10000 by default): minutes on two cores
            .config("spark.sql.sources.parallelPartitionDiscovery.parallelism", "4")
            .config("spark.sql.session.timeZone", "UTC")
            # Spark 4's calendar defaults (Spark 3.5 refuses dates before 1582 unless told), which Silt keeps
            .config("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED")
            .config("spark.sql.parquet.datetimeRebaseModeInRead", "CORRECTED")
            .config("spark.sql.warehouse.dir", os.path.join(os.environ.get("TMPDIR", "/tmp"),
                                                            f"silt-refdelta-wh-{os.getpid()}"))
            .getOrCreate())


def op_read(spark, canon, op):
    reader = spark.read.format("delta")
    if op.get("version") is not None:
        reader = reader.option("versionAsOf", int(op["version"]))
    df = reader.load(op["path"])
    columns = list(df.columns)
    table = canon.arrow_table(df)
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


def op_api(spark, canon, op):
    from delta.tables import DeltaTable
    from pyspark.sql import functions as F
    scope = {"spark": spark, "DeltaTable": DeltaTable, "F": F}
    exec(op["code"], scope)
    return {"result": repr(scope.get("result"))}


# The objects whose loading registers Delta Lake's session settings in Spark's SQLConf.
DELTA_SETTING_OBJECTS = ["org.apache.spark.sql.delta.sources.DeltaSQLConf$",
                         "org.apache.spark.sql.delta.stats.DataSkippingReaderConf$"]


def op_settings(spark, canon, op):
    """Every session setting the reference registers under one of op["prefixes"], with its default as Spark renders it."""
    jvm = spark._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    for name in DELTA_SETTING_OBJECTS:
        try:
            jvm.java.lang.Class.forName(name, True, loader).getField("MODULE$").get(None)
        except Exception:  # noqa: BLE001 - an older release without it (Delta Lake 3.3 has no DataSkippingReaderConf)
            pass
    sql_conf = getattr(getattr(jvm.org.apache.spark.sql.internal, "SQLConf$"), "MODULE$")
    entries = sql_conf.getConfigEntries().toArray()
    return {"settings": {e.key(): e.defaultValueString() for e in entries
                         if any(e.key().startswith(p) for p in op["prefixes"])}}


def op_table_properties(spark, canon, op):
    """Every table property the reference declares (DeltaConfigs' private registry, read by reflection)."""
    jvm = spark._jvm
    loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
    module_class = jvm.java.lang.Class.forName("org.apache.spark.sql.delta.DeltaConfigs$", True, loader)
    configs = module_class.getField("MODULE$").get(None)
    # `entries` (Delta Lake 4), or its name-mangled accessor (Delta Lake 3)
    accessor = next(m for m in module_class.getDeclaredMethods() if m.getName().endswith("entries")
                    and m.getParameterCount() == 0)
    accessor.setAccessible(True)
    entries = accessor.invoke(configs, spark.sparkContext._gateway.new_array(jvm.java.lang.Object, 0))
    result = {}
    for config in list(entries.values()):
        names = {m.getName() for m in config.getClass().getMethods()}
        configurable = config.userConfigurable() if "userConfigurable" in names else True
        result[config.key()] = {"default": config.defaultValue(), "help": config.helpMessage(),
                                "userConfigurable": bool(configurable)}
    return {"properties": result}


def op_upsert_race(spark, canon, op):
    import upsert_race
    return upsert_race.race(spark, "delta", op["folder"])


OPS = {"settings": op_settings, "table_properties": op_table_properties, "api": op_api, "detail": op_detail, "changes": op_changes, "stream": op_stream, "upsert_race": op_upsert_race, "read": op_read, "write_dataset": op_write_dataset, "history": op_history, "sql": op_sql, "query": op_query, "write": op_write}


class _Server:
    """The serving process, seen from a test run: started on first use, ended with the run."""

    def __init__(self, env):
        import atexit, queue, subprocess, tempfile, threading
        self.env = env
        self.log = tempfile.NamedTemporaryFile("w+", prefix="silt-refdelta-", suffix=".log", delete=False)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--serve"], env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        self.lines = queue.Queue()
        # A thread reads stdout so that a request can time out instead of blocking on a hung server.
        threading.Thread(target=lambda: [self.lines.put(l) for l in self.proc.stdout] + [self.lines.put(None)],
                         daemon=True).start()
        atexit.register(self.stop)

    def request(self, cmd, timeout_s):
        import queue, time
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise self.failure(f"no answer in {timeout_s} s")
            if line is None:
                raise self.failure(f"it exited ({self.proc.wait()})")
            if line.startswith(RESULT_MARKER):
                return json.loads(line[len(RESULT_MARKER):])["results"]

    def failure(self, why):
        self.log.seek(0)
        tail = self.log.read()[-6000:]
        self.stop()
        return RuntimeError(f"reference Delta server failed: {why}\nstderr tail: {tail}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if not self.log.closed:
            self.log.close()
            os.unlink(self.log.name)


_server = None


def call(ops, canon_path, timeout_s, env=None):
    """Runs `ops` in the reference-Delta server (started here on first use) and returns their results
    in order. A server that fails or times out is ended; the next call starts a new one."""
    global _server
    env = dict(os.environ) if env is None else env
    # pytest names the running test in the environment (PYTEST_CURRENT_TEST): not a reason to restart.
    env = {k: v for k, v in env.items() if not k.startswith("PYTEST_")}
    if _server is None or _server.proc.poll() is not None or _server.env != env:
        if _server is not None:
            _server.stop()
        _server = _Server(env)
    try:
        return _server.request({"canon": str(canon_path), "ops": ops}, timeout_s)
    except BaseException:
        _server.stop()
        raise


def settings(spark):
    """The session's explicitly set SQL settings (`SET` lists them)."""
    return {r[0]: r[1] for r in spark.sql("SET").collect()}


def reset(spark, initial):
    """Puts the session back as it started, so that a request sees nothing an earlier one left.

    Settings go back to `initial` one by one rather than by `RESET`: Delta's extension sets some
    (Parquet field ids) when the session state is built, and `RESET` would drop them for good."""
    for query in spark.streams.active:
        query.stop()
    for key, value in settings(spark).items():
        try:
            if key not in initial:
                spark.conf.unset(key)
            elif value != initial[key]:
                spark.conf.set(key, initial[key])
        except Exception as e:
            # a program's builder may name static settings (spark.jars.packages): those did not change
            if "CANNOT_MODIFY_CONFIG" not in str(e):
                raise
    spark.catalog.setCurrentDatabase("default")
    for db in spark.catalog.listDatabases():
        if db.name != "default":
            spark.sql(f"DROP DATABASE IF EXISTS `{db.name}` CASCADE")
    for table in spark.catalog.listTables("default"):
        if table.isTemporary:
            spark.catalog.dropTempView(table.name)
        else:
            spark.sql(f"DROP TABLE IF EXISTS default.`{table.name}`")
    spark.catalog.clearCache()
    spark._jvm.org.apache.spark.sql.delta.DeltaLog.clearCache()


def run_ops(spark, canon, ops):
    """Runs one request's operations; an operation's error is its result, not the request's end."""
    results = []
    for op in ops:
        try:
            res = OPS[op["op"]](spark, canon, op)
            res.update(ok=True)
        except Exception as e:  # reported to the test, which decides what it means
            traceback.print_exc(file=sys.stderr)
            res = {"ok": False, "error": f"{type(e).__name__}: {e}"[:4000]}
        res["op"] = op
        results.append(res)
    return results


def serve():
    """Answers requests from stdin until it closes (the test run ended or was killed)."""
    spark = build_spark()
    initial = settings(spark)  # after the session state (and Delta's extension) is built
    canons = {}
    try:
        for line in sys.stdin:
            if not line.strip():
                continue
            cmd = json.loads(line)
            if cmd["canon"] not in canons:
                canons[cmd["canon"]] = load_canon(cmd["canon"])
            reset(spark, initial)
            results = run_ops(spark, canons[cmd["canon"]], cmd["ops"])
            sys.stdout.write(RESULT_MARKER + json.dumps({"results": results}) + "\n")
            sys.stdout.flush()
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] != ["--serve"]:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(serve())
