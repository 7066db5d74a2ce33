"""Reads Iceberg tables with Spark and Iceberg's own runtime (no Silt in this process): each request of the
JSON list in argv[1] names a table folder and, optionally, a snapshot id; prints one JSON line of results, the
rows rendered by tests/conformance/canon.py. `register` requests register the newest metadata file in a Hadoop
catalog (Iceberg's register_table) and read the table from it. With a metastore folder (argv[3], the embedded
Derby metastore tests/scenarios/hive_session.py makes), Iceberg's HiveCatalog on it is catalog `hms`: `table`
requests read `hms.<table>`, `tables` requests list the Iceberg tables of a namespace."""
import json
import os
import sys

from pyspark.sql import SparkSession

import canon

ICEBERG_PACKAGE = os.environ.get("SILT_ICEBERG_RUNTIME", "org.apache.iceberg:iceberg-spark-runtime-4.0_2.13:1.10.0")


def main():
    requests, warehouse = json.loads(sys.argv[1]), sys.argv[2]
    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .config("spark.jars.packages", ICEBERG_PACKAGE)
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config("spark.sql.catalog.ice", "org.apache.iceberg.spark.SparkCatalog")
             .config("spark.sql.catalog.ice.type", "hadoop")
             .config("spark.sql.catalog.ice.warehouse", warehouse)
             .config("spark.sql.session.timeZone", "UTC"))
    if len(sys.argv) > 3:
        metastore = sys.argv[3]
        spark = (spark.config("spark.sql.catalog.hms", "org.apache.iceberg.spark.SparkCatalog")
                 .config("spark.sql.catalog.hms.type", "hive")
                 .config("spark.hadoop.javax.jdo.option.ConnectionURL", f"jdbc:derby:;databaseName={metastore}/metastore_db")
                 .config("spark.hadoop.hive.metastore.schema.verification", "false")
                 .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={metastore}"))
    spark = spark.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql("CREATE NAMESPACE IF NOT EXISTS ice.db")
    out = []
    for i, r in enumerate(requests):
        try:
            if r.get("tables"):
                names = sorted(row.tableName for row in spark.sql(f"SHOW TABLES IN hms.{r['tables']}").collect())
                out.append({"ok": True, "tables": names})
                continue
            if r.get("table"):
                df = spark.table(f"hms.{r['table']}")
            elif r.get("register"):
                with open(os.path.join(r["path"], "metadata", "version-hint.text")) as f:
                    hint = f.read()
                name = f"ice.db.t{i}"
                spark.sql(f"CALL ice.system.register_table(table => 'db.t{i}', metadata_file => "
                          f"'{r['path']}/metadata/v{hint}.metadata.json')")
                df = spark.table(name)
            else:
                reader = spark.read.format("iceberg")
                if r.get("snapshot_id") is not None:
                    reader = reader.option("snapshot-id", r["snapshot_id"])
                df = reader.load(r["path"])
            rows, _ = canon.render_table(canon.arrow_table(df), df.columns)
            out.append({"ok": True, "columns": df.columns, "rows": sorted(canon.canonical_json(x) for x in rows)})
        except Exception as e:  # reported, not raised: the test names what failed
            out.append({"ok": False, "error": f"{type(e).__name__}: {str(e)[:2000]}"})
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main()
