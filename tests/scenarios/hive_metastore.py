"""A session with Hive support (an embedded Derby metastore in the folder given) runs statements on `USING delta`
tables by name and prints, as one JSON line, what each statement returned (rows as strings, or the error) and,
after each, what the metastore holds of every table (provider, type, location, columns) beside what the
table's _delta_log says. With `--engine reference`, the reference Delta Lake runs them (its jar from Maven
Central) in the same metastore.

    python hive_metastore.py FOLDER STATEMENTS_JSON [--engine silt|reference]
"""
import json
import os
import sys

from pyspark.sql import SparkSession

folder, statements = sys.argv[1], json.loads(open(sys.argv[2]).read())
engine = sys.argv[sys.argv.index("--engine") + 1] if "--engine" in sys.argv else "silt"

builder = (SparkSession.builder.master("local[2]").appName(f"hive-{engine}")
           .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
           .config("spark.sql.shuffle.partitions", "2").config("spark.sql.session.timeZone", "UTC")
           .config("spark.sql.warehouse.dir", os.path.join(folder, "warehouse"))
           .config("javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={folder}/metastore_db;create=true")
           .config("spark.hadoop.hive.metastore.schema.verification", "false")
           .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={folder}")
           .enableHiveSupport())
if engine == "reference":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "interop"))
    from reference_delta import DELTA_PACKAGE
    builder = (builder.config("spark.jars.packages", DELTA_PACKAGE)
               .config("spark.sql.extensions", "io.delta.sql.DeltaSparkSessionExtension")
               .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog"))
else:
    import silt
    builder = silt.configure(builder)
spark = builder.getOrCreate()
catalog = spark._jsparkSession.sessionState().catalog()


def metastore():
    """Every table of the default database as the metastore keeps it, beside its _delta_log's columns."""
    tables = {}
    for row in spark.sql("SHOW TABLES IN default").collect():
        if row.isTemporary:
            continue
        ident = spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(row.tableName, spark._jvm.scala.Some("default"))
        entry = catalog.externalCatalog().getTable("default", row.tableName)
        provider = entry.provider().get() if entry.provider().isDefined() else None
        location = entry.storage().locationUri().get().toString() if entry.storage().locationUri().isDefined() else None
        columns = [f.name() + " " + f.dataType().simpleString() for f in entry.schema().fields()]
        log = None
        if location and entry.tableType().name() != "VIEW":
            path = location.replace("file:", "")
            commits = sorted(f for f in os.listdir(os.path.join(path, "_delta_log")) if f.endswith(".json")) \
                if os.path.isdir(os.path.join(path, "_delta_log")) else []
            schema = None
            for name in commits:
                for line in open(os.path.join(path, "_delta_log", name)):
                    if '"metaData"' in line:
                        schema = json.loads(json.loads(line)["metaData"]["schemaString"])
            log = [f["name"] + " " + spark._jvm.org.apache.spark.sql.types.DataType.fromJson(json.dumps(f["type"]))
                   .simpleString() for f in schema["fields"]] if schema else None
        tables[row.tableName] = {"provider": provider, "type": entry.tableType().name(), "location": location,
                                 "columns": columns, "log": log, "exists": bool(location and os.path.isdir(
                                     location.replace("file:", "")))}
        del ident
    return tables


results = []
for statement in statements:
    try:
        rows = [[None if v is None else str(v) for v in r] for r in spark.sql(statement).collect()]
        results.append({"statement": statement, "rows": rows, "metastore": metastore()})
    except Exception as e:  # noqa: BLE001 - reported to the test, which decides
        results.append({"statement": statement, "error": f"{type(e).__name__}: {e}"[:2000], "metastore": metastore()})
print("@@RESULT@@ " + json.dumps(results))
spark.stop()
