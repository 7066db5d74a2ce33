"""The Silt demo: write a partitioned Delta table, read it back, and show what skipping saves.

Run with `make demo` (it builds the jar and the environment it needs first).
"""
import shutil
import tempfile
import time
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import silt
from silt.cli import layout, plot

PICTURES = Path(__file__).resolve().parent.parent / "build" / "demo"


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
                  .withColumn("user_id", (F.rand(3) * 100000).cast("long"))
                  .withColumn("amount", F.round(F.rand(4) * 100, 2)))
        spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day INT, city STRING, user_id BIGINT, amount DOUBLE) "
                  "USING silt PARTITIONED BY (day) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
        t0 = time.time()
        events.write.format("silt").mode("append").save(path)
        print(f"   written in {time.time() - t0:.1f}s")

        table = spark.read.format("silt").load(path)
        print(f"== {table.count():,} rows, {spark.sql(f'DESCRIBE DETAIL {path!r}').first()['numFiles']} files")

        query = table.where("id BETWEEN 1000000 AND 1001000")
        total = files_scanned(spark, table)
        scanned = files_scanned(spark, query)
        print(f"== query `id BETWEEN 1000000 AND 1001000`: {query.count()} rows, "
              f"scans {scanned} of {total} files ({total / max(scanned, 1):.0f}x fewer, thanks to min/max statistics)")
        print(f"== query `day = 3`: scans {files_scanned(spark, table.where('day = 3'))} of {total} files (partition pruning)")

        # Deletion vectors: DELETE marks rows instead of rewriting files.
        files_before = {r["path"] for r in spark.sql(f"DESCRIBE FILES '{path}'").collect()}
        t0 = time.time()
        deleted = spark.sql(f"DELETE FROM silt.`{path}` WHERE id % 1000 = 0").first()["num_affected_rows"]
        files_after = {r["path"] for r in spark.sql(f"DESCRIBE FILES '{path}'").collect()}
        dvs = silt.SiltTable.for_path(spark, path).deletion_vectors().count()
        print(f"== DELETE: {deleted:,} rows in {time.time() - t0:.1f}s, {dvs} files got a deletion vector, "
              f"{len(files_before ^ files_after)} data files rewritten")

        # Z-order: cluster each day's rows on (user, amount) so that selective filters on either skip files.
        queries = ["user_id BETWEEN 1000 AND 1500", "amount BETWEEN 42.0 AND 42.5"]
        before = [files_scanned(spark, spark.read.format("silt").load(path).where(q)) for q in queries]
        layout_before = layout(spark, path, ["user_id", "amount"])
        spark.conf.set("spark.silt.optimize.maxFileSize", str(256 << 10))
        t0 = time.time()
        m = silt.SiltTable.for_path(spark, path).optimize().execute_zorder_by("user_id", "amount").first()["metrics"]
        print(f"== OPTIMIZE ZORDER BY (user_id, amount): {m['numFilesRemoved']} files -> {m['numFilesAdded']} files "
              f"in {time.time() - t0:.1f}s")
        table = spark.read.format("silt").load(path)
        total = files_scanned(spark, table)
        for q, b in zip(queries, before):
            after = files_scanned(spark, table.where(q))
            print(f"== query `{q}`: scanned {b} files before ZORDER, {after} of {total} after "
                  f"({b / max(after, 1):.1f}x fewer)")

        picture = draw_layouts(layout_before, layout(spark, path, ["user_id", "amount"]))
        if picture:
            print(f"== how many files cover each (user_id, amount) point, before and after: {picture}")

        spark.range(0, 10).withColumn("day", F.lit(3)).withColumn("city", F.lit("Brest")) \
            .withColumn("user_id", F.lit(1).cast("long")).withColumn("amount", F.lit(1.0)).write.format("silt").mode("append").save(path)
        print("== history:")
        spark.sql(f"DESCRIBE HISTORY '{path}'").select("version", "operation", "operationMetrics").show(truncate=False)
        print(f"== time travel: version 1 has {spark.read.format('silt').option('versionAsOf', 1).load(path).count():,} rows")
    finally:
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)


def draw_layouts(before, after):
    """One picture, before and after side by side on one scale: how many files cover each point; none
    without matplotlib."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return None
    PICTURES.mkdir(parents=True, exist_ok=True)
    out = str(PICTURES / "layout.png")
    plot([before, after], out, ["before OPTIMIZE", "after ZORDER BY (user_id, amount)"])
    return out


if __name__ == "__main__":
    main()
