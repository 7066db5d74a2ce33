"""A small write / read / skip scenario for `local-cluster` mode (executors are separate JVMs).

Run by tests/test_local_cluster.py in a process of its own (a second SparkSession with another
master cannot share the test session's JVM). Prints one line `@@RESULT@@ <json>` with what it
saw; the test decides what is right. Usage: local_cluster.py TABLE_PATH [MASTER]
"""
import json
import sys
import time


def main(path, master):
    from conftest import build_silt_session, files_scanned

    t0 = time.time()
    spark = build_silt_session(master=master, extra_conf={"spark.executor.memory": "768m"})
    out = {"startup_s": round(time.time() - t0, 1)}
    try:
        def batch(lo, hi):
            # 4 range partitions of `id` -> every file holds one contiguous id range per `part`.
            return (spark.range(lo, hi, 1, 4)
                    .selectExpr("id", "CAST(id % 4 AS INT) AS part", "concat('row-', id) AS s",
                                "CAST(id AS DOUBLE) / 8 AS x")
                    .repartitionByRange(4, "id").sortWithinPartitions("id"))

        batch(0, 20000).write.format("silt").partitionBy("part").mode("append").save(path)
        batch(20000, 30000).write.format("silt").partitionBy("part").mode("append").save(path)

        df = spark.read.format("silt").load(path)
        agg = df.selectExpr("count(*) AS n", "sum(id) AS s", "count(DISTINCT s) AS d").collect()[0]
        out.update(count=agg["n"], sum_id=agg["s"], distinct_s=agg["d"])
        out["files_total"] = files_scanned(spark, df)

        sel = df.where("part = 1 AND id < 100")
        out["selective_rows"] = sorted(r["id"] for r in sel.select("id").collect())
        out["selective_files"] = files_scanned(spark, sel)

        # executors register asynchronously; by now both have run tasks. Minus 1: the driver.
        out["executors"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1

        v0 = spark.read.format("silt").option("versionAsOf", 0).load(path)
        out["v0_count"] = v0.count()
        out["history_versions"] = sorted(r["version"] for r in spark.sql(f"DESCRIBE HISTORY '{path}'").collect())
    finally:
        spark.stop()
    out["total_s"] = round(time.time() - t0, 1)
    print("@@RESULT@@ " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "local-cluster[2,1,1024]")
