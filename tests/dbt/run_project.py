"""Runs the dbt project beside this file (dbt-spark's `session` connection, `file_format: delta`) in a session with
Hive support on the metastore in FOLDER, by Silt or by the reference Delta Lake, and prints as one JSON line
what a test compares: each dbt step's node statuses, every table's rows after the last step, the columns and
comments `dbt docs generate` read, and each table's metastore columns beside its log's.

Plan "full": seed; run; microbatch over three days; snapshot; test; the source tables changed (an update, a
delete, new rows); run again with `round: 2` (new, dropped and failing schema changes); microbatch over five
days; snapshot; test; docs generate. Plan "quick": seed, two merge models, the change, the two models again.

    python run_project.py FOLDER [--engine silt|reference] [--plan full|quick]

It runs under the environment that has dbt (the Makefile's .venvs/dbt), whose pyspark is the default minor's.
"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "scenarios"))
import hive_session  # noqa: E402

RESULT_MARKER = "@@RESULT@@ "
SCHEMAS = ("analytics", "snapshots")

# The source data's change between the two rounds: what a day of an upstream system does to it.
CHANGE = [
    "UPDATE analytics.customers SET city = 'Oslo', updated_at = TIMESTAMP'2026-01-05 08:00:00' WHERE id = 2",
    "UPDATE analytics.customers SET tier = 'gold' WHERE id = 3",
    "DELETE FROM analytics.customers WHERE id = 4",
    "INSERT INTO analytics.customers VALUES (5, 'Alan', 'Wilmslow', 'platinum', TIMESTAMP'2026-01-05 09:00:00')",
    "UPDATE analytics.orders SET amount = 99.00 WHERE order_id = 104 AND line = 2",
    "INSERT INTO analytics.orders VALUES (105, 1, 5, 42.00, DATE'2026-01-04', TIMESTAMP'2026-01-04 10:00:00'), "
    "(106, 1, 2, 8.00, DATE'2026-01-05', TIMESTAMP'2026-01-05 11:00:00')",
]

ROUND_2 = ["--vars", "{round: 2}"]
MICROBATCH = ["run", "--select", "orders_microbatch", "--event-time-start", "2026-01-01"]
PLANS = {
    "full": [
        ("seed", ["seed"]),
        ("run", ["run", "--exclude", "orders_microbatch"]),
        ("microbatch", MICROBATCH + ["--event-time-end", "2026-01-04"]),
        ("snapshot", ["snapshot"]),
        ("test", ["test"]),
        ("change", CHANGE),
        ("run 2", ["run", "--exclude", "orders_microbatch"] + ROUND_2),
        ("microbatch 2", MICROBATCH + ["--event-time-end", "2026-01-06"]),
        ("snapshot 2", ["snapshot"]),
        ("test 2", ["test", "--exclude", "schema_fail"]),
        ("docs", ["docs", "generate"]),
    ],
    "quick": [
        ("seed", ["seed"]),
        ("run", ["run", "--select", "customers_merge", "order_lines_merge"]),
        ("change", CHANGE),
        ("run 2", ["run", "--select", "customers_merge", "order_lines_merge"] + ROUND_2),
    ],
}


def invoke(args, folder):
    """One dbt command, in this process (so that dbt-spark's session is the one built here): its nodes' statuses."""
    from dbt.cli.main import dbtRunner
    project = os.path.join(folder, "project")
    result = dbtRunner().invoke(args + ["--project-dir", project, "--profiles-dir", project])
    statuses = {}
    for node in getattr(result.result, "results", None) or []:
        statuses[node.node.unique_id] = str(node.status)
    error = None if result.exception is None else f"{type(result.exception).__name__}: {result.exception}"
    return {"success": result.success, "statuses": statuses, "error": error}


def rows_of(spark, table):
    """A table's columns, its rows (each value as str(), sorted), and the comments persist_docs gave it and them."""
    df = spark.table(table)
    rows = sorted([[None if v is None else str(v) for v in r] for r in df.collect()], key=lambda r: json.dumps(r))
    described = {r[0]: r[1] for r in spark.sql(f"DESCRIBE TABLE EXTENDED {table}").collect()}
    return {"columns": df.columns, "rows": rows, "comment": described.get("Comment"),
            "column_comments": {f.name: f.metadata.get("comment") for f in df.schema.fields}}


def catalog_columns(folder):
    """What `dbt docs generate` read of each relation: its comment and its columns' types and comments."""
    path = os.path.join(folder, "target", "catalog.json")
    if not os.path.exists(path):
        return None
    nodes = json.load(open(path))["nodes"]
    return {uid: {"comment": n["metadata"].get("comment"),
                  "columns": {c: {"type": v["type"], "comment": v.get("comment")} for c, v in n["columns"].items()}}
            for uid, n in sorted(nodes.items())}


def main():
    folder = os.path.abspath(sys.argv[1])
    engine = sys.argv[sys.argv.index("--engine") + 1] if "--engine" in sys.argv else "silt"
    plan = sys.argv[sys.argv.index("--plan") + 1] if "--plan" in sys.argv else "full"
    shutil.copytree(os.path.join(HERE, "project"), os.path.join(folder, "project"), dirs_exist_ok=True)
    os.environ.update({"DBT_TARGET_PATH": os.path.join(folder, "target"), "DBT_LOG_PATH": os.path.join(folder, "logs"),
                       "DBT_LOCATION_ROOT": os.path.join(folder, "locations"),
                       "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "DO_NOT_TRACK": "1"})
    spark = hive_session.build(folder, engine, app="dbt")
    steps = {}
    for name, step in PLANS[plan]:
        if step is CHANGE:
            for statement in CHANGE:
                spark.sql(statement)
            continue
        steps[name] = invoke(step, folder)
    tables = {}
    for schema in SCHEMAS:
        if schema in [r[0] for r in spark.sql("SHOW DATABASES").collect()]:
            for name, entry in hive_session.metastore(spark, schema).items():
                if entry["type"] != "VIEW":
                    tables[f"{schema}.{name}"] = dict(rows_of(spark, f"{schema}.{name}"), metastore=entry)
    print(RESULT_MARKER + json.dumps({"steps": steps, "tables": tables, "catalog": catalog_columns(folder)}))
    spark.stop()


if __name__ == "__main__":
    main()
