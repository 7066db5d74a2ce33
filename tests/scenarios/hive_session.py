"""A SparkSession with Hive support whose embedded Derby metastore and warehouse live in one folder, run by
Silt or (engine "reference") by the reference Delta Lake from Maven Central: the session of a Delta
deployment with a metastore (the Thrift server, dbt-spark, on-premise clusters)."""
import json
import os
import sys

from pyspark.sql import SparkSession


def build(folder, engine="silt", app="hive"):
    """The session for `engine` over the metastore in `folder` (made there on first use)."""
    builder = (SparkSession.builder.master("local[2]").appName(f"{app}-{engine}")
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
                   .config("spark.sql.catalog.spark_catalog", "org.apache.spark.sql.delta.catalog.DeltaCatalog")
                   # Delta Lake's state in 2 partitions, not 50, on 2 cores (as its own test harness sets it)
                   .config("spark.databricks.delta.snapshotPartitions", "2"))
    else:
        import silt
        builder = silt.configure(builder)
    return builder.getOrCreate()


def metastore(spark, database="default"):
    """Every table of `database` as the metastore keeps it (provider, type, location, columns), beside the
    columns of its _delta_log's newest metadata."""
    external = spark._jsparkSession.sessionState().catalog().externalCatalog()
    tables = {}
    for row in spark.sql(f"SHOW TABLES IN {database}").collect():
        if row.isTemporary:
            continue
        entry = external.getTable(database, row.tableName)
        provider = entry.provider().get() if entry.provider().isDefined() else None
        location = entry.storage().locationUri().get().toString() if entry.storage().locationUri().isDefined() else None
        columns = [f.name() + " " + f.dataType().simpleString() for f in entry.schema().fields()]
        log = None
        if location and entry.tableType().name() != "VIEW":
            log = _log_columns(spark, location.replace("file:", ""))
        tables[row.tableName] = {"provider": provider, "type": entry.tableType().name(), "location": location,
                                 "columns": columns, "log": log, "exists": bool(location and os.path.isdir(
                                     location.replace("file:", "")))}
    return tables


def _log_columns(spark, path):
    """The columns ("name type") of the newest metadata in the table's JSON commits, or None without a log."""
    log_dir = os.path.join(path, "_delta_log")
    commits = sorted(f for f in os.listdir(log_dir) if f.endswith(".json")) if os.path.isdir(log_dir) else []
    schema = None
    for name in commits:
        for line in open(os.path.join(log_dir, name)):
            if '"metaData"' in line:
                schema = json.loads(json.loads(line)["metaData"]["schemaString"])
    data_type = spark._jvm.org.apache.spark.sql.types.DataType
    return [f["name"] + " " + data_type.fromJson(json.dumps(f["type"])).simpleString()
            for f in schema["fields"]] if schema else None
