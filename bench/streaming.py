"""streaming: the streaming source over a table of many small commits, against a batch read of the
same rows; and what recording the change data feed costs a MERGE (the same MERGE on a table with
`delta.enableChangeDataFeed` on and on one with it off, alternating, with and without deletion
vectors). Report only.
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, alternating, link_copy, measure_and_save, rm, say, timed

SCRATCH = SCRATCH_DIR / "streaming"


def build_commits(spark, path, commits, rows_per_commit):
    """A table of `commits` appends, each one file of `rows_per_commit` rows."""
    for c in range(commits):
        spark.range(c * rows_per_commit, (c + 1) * rows_per_commit, 1, 1) \
            .selectExpr("id", "CAST(id % 97 AS INT) AS k", "CONCAT('v', CAST(id AS STRING)) AS v") \
            .write.format("silt").mode("append").save(path)
        if c % 100 == 99:
            say(f"  streaming: {c + 1} commits written")


def stream_rows(spark, path, max_files, starting_version):
    """Seconds to stream the whole table into Spark's no-op sink, and the micro-batches it took."""
    def run():
        reader = spark.readStream.format("silt").option("maxFilesPerTrigger", max_files)
        if starting_version is not None:
            reader = reader.option("startingVersion", starting_version)
        query = reader.load(path).writeStream.format("noop").trigger(availableNow=True).start()
        query.awaitTermination()
        return [p["numInputRows"] for p in query.recentProgress]
    secs, progress = timed(run)
    return secs, sum(progress), len([n for n in progress if n])


def bench_source(spark, commits, rows_per_commit, reps):
    path = str(SCRATCH / "commits")
    rm(path)
    secs, _ = timed(lambda: build_commits(spark, path, commits, rows_per_commit))
    say(f"  streaming: {commits} commits written in {secs:.0f} s")
    total = commits * rows_per_commit
    batch = lambda: spark.read.format("silt").load(path).write.format("noop").mode("overwrite").save()
    # name: (maxFilesPerTrigger, startingVersion); None: the batch read
    kinds = {"batch read": None, "stream from version 0, maxFilesPerTrigger 100": (100, 0),
             "stream from version 0, maxFilesPerTrigger 1000 (default)": (1000, 0),
             "stream of the initial snapshot, maxFilesPerTrigger 100": (100, None)}
    runs = {name: [] for name in kinds}
    batches = {}
    for i in range(reps + 1):  # the first round warms up
        for name in alternating(list(runs), i):
            if kinds[name] is None:
                secs, rows, n = timed(batch)[0], total, 1
            else:
                secs, rows, n = stream_rows(spark, path, *kinds[name])
            assert rows == total, f"{name} read {rows} rows, not {total}"
            batches[name] = n
            if i:
                runs[name].append(secs)
            say(f"  {name} rep {i}: {secs:.2f} s ({n} batches)")
    medians = {k: statistics.median(v) for k, v in runs.items()}
    return {"commits": commits, "rows": total, "seconds": runs, "median_seconds": medians, "micro_batches": batches,
            "rows_per_second": {k: total / v for k, v in medians.items()},
            "ratio_to_batch_read": {k: v / medians["batch read"] for k, v in medians.items()}}


MERGE = ("MERGE INTO silt.`{t}` t USING src s ON t.id = s.id "
         "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")


def bench_merge(spark, rows, reps):
    """The same MERGE (1% of rows updated, 0.5% inserted) on tables with the feed on and off."""
    spark.range(0, rows, 1, 8).selectExpr("id * 2 AS id", "CAST(id % 97 AS INT) AS k", "CONCAT('v', CAST(id AS STRING)) AS v") \
        .createOrReplaceTempView("base_rows")
    spark.sql(f"SELECT id + (CASE WHEN id % 300 = 0 THEN 1 ELSE 0 END) AS id, k, 'merged' AS v FROM base_rows "
              f"WHERE id % 100 = 0 OR id % 300 = 0").createOrReplaceTempView("src")
    out = {}
    for dvs in ("true", "false"):
        bases = {}
        for cdf in ("false", "true"):
            base = str(SCRATCH / f"merge_base_dv{dvs}_cdf{cdf}")
            rm(base)
            spark.sql(f"CREATE TABLE silt.`{base}` (id BIGINT, k INT, v STRING) USING silt TBLPROPERTIES "
                      f"('delta.enableDeletionVectors' = '{dvs}', 'delta.enableChangeDataFeed' = '{cdf}')")
            spark.table("base_rows").write.format("silt").mode("append").save(base)
            bases[cdf] = base
        seconds = {"false": [], "true": []}
        for i in range(reps + 1):
            for cdf in alternating(("false", "true"), i):
                t = link_copy(bases[cdf], SCRATCH / f"merge_run_dv{dvs}_cdf{cdf}")
                secs, _ = timed(lambda: spark.sql(MERGE.format(t=t)).collect())
                if i:
                    seconds[cdf].append(secs)
                say(f"  MERGE deletionVectors={dvs} changeDataFeed={cdf} rep {i}: {secs:.2f} s")
        off, on = statistics.median(seconds["false"]), statistics.median(seconds["true"])
        out[f"deletionVectors={dvs}"] = {"seconds": seconds, "median_seconds": {"cdf_off": off, "cdf_on": on},
                                         "ratio_on_over_off": on / off}
    return {"rows": rows, "source_rows_updated_fraction": 0.01, "source_rows_inserted_fraction": 0.005, "variants": out}


def parser():
    """The streaming benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench streaming", description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=1000, help="commits (one file each) of the streamed table")
    ap.add_argument("--rows-per-commit", type=int, default=2000)
    ap.add_argument("--merge-rows", type=int, default=4_000_000, help="rows of the MERGE target")
    ap.add_argument("--reps", type=int, default=3)
    return ap


def main(argv):
    """Runs the streaming benchmark; writes results/streaming.json and returns the result."""
    args = parser().parse_args(argv)

    def measure(spark):
        return {"benchmark": "streaming", "source": bench_source(spark, args.commits, args.rows_per_commit, args.reps),
                "merge_change_feed": bench_merge(spark, args.merge_rows, args.reps)}
    return measure_and_save(measure, SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    s = r["source"]
    rows = [("streaming", f"{name} ({s['commits']} commits)",
             f"{s['median_seconds'][name]:.2f} s, {s['rows_per_second'][name]:,.0f} rows/s "
             f"({s['ratio_to_batch_read'][name]:.2f}x the batch read)") for name in s["median_seconds"]]
    for name, v in r["merge_change_feed"]["variants"].items():
        m = v["median_seconds"]
        rows.append(("streaming", f"MERGE {name}: change feed off / on",
                     f"{m['cdf_off']:.2f} s / {m['cdf_on']:.2f} s ({v['ratio_on_over_off']:.2f}x)"))
    return rows
