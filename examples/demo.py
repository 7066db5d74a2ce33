"""The Silt demo: write a partitioned Delta table, read it back, and show what skipping saves.

Run with `make demo` (it builds everything first).
"""
import shutil
import tempfile
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import silt


def files_scanned(spark, df):
    return int(spark._jvm.io.silt.read.ScanMetrics.filesScanned(df._jdf))


def main() -> None:
    spark = (silt.configure(SparkSession.builder.master("local[2]").appName("silt-demo"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "8")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    root = tempfile.mkdtemp(prefix="silt-demo-")
    path = f"{root}/events"
    try:
        print(f"== writing 2,000,000 events to {path}")
        events = (spark.range(0, 2_000_000, numPartitions=40)
                  .withColumn("day", (F.col("id") % 7).cast("int"))
                  .withColumn("city", F.element_at(F.array(*[F.lit(c) for c in
                              ["Paris", "Lyon", "Nice", "Lille", "Nantes", "Metz"]]), (F.col("id") % 6 + 1).cast("int")))
                  .withColumn("amount", (F.col("id") * 7919 % 10000) / 100.0))
        t0 = time.time()
        events.write.format("silt").partitionBy("day").save(path)
        print(f"   written in {time.time() - t0:.1f}s")

        table = spark.read.format("silt").load(path)
        print(f"== {table.count():,} rows, {spark.sql(f'DESCRIBE DETAIL {path!r}').first()['numFiles']} files")

        query = table.where("id BETWEEN 1000000 AND 1001000")
        total = files_scanned(spark, table)
        scanned = files_scanned(spark, query)
        print(f"== query `id BETWEEN 1000000 AND 1001000`: {query.count()} rows, "
              f"scans {scanned} of {total} files ({total / max(scanned, 1):.0f}x fewer, thanks to min/max statistics)")
        print(f"== query `day = 3`: scans {files_scanned(spark, table.where('day = 3'))} of {total} files (partition pruning)")

        spark.range(0, 10).withColumn("day", F.lit(3)).withColumn("city", F.lit("Brest")) \
            .withColumn("amount", F.lit(1.0)).write.format("silt").mode("append").save(path)
        print("== history:")
        spark.sql(f"DESCRIBE HISTORY '{path}'").select("version", "operation", "operationMetrics").show(truncate=False)
        print(f"== time travel: version 0 has {spark.read.format('silt').option('versionAsOf', 0).load(path).count():,} rows")
    finally:
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
