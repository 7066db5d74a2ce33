"""column_mapping: the same rows in a table without column mapping and in one in `name` mode (files
with physical column names, statistics and partition values keyed by them); a full scan, a
selective query that statistics skip files for, and a scan of a nested field, timed alternately
on both tables. Reports each median and the ratio mapped/plain (1.0: mapping costs nothing).
"""
import argparse
import statistics

from bench.common import SCRATCH_DIR, alternating, measure_and_save, say, timed

SCRATCH = SCRATCH_DIR / "column_mapping"
QUERIES = {
    "full scan": "SELECT count(*), sum(v), max(s.a), max(label) FROM t",
    "selective (skips files)": "SELECT count(*), sum(v) FROM t WHERE key BETWEEN {lo} AND {hi}",
    "nested field": "SELECT sum(s.a) FROM t WHERE part = 3",
}


def bench_column_mapping(spark, rows, reps, files=40):
    """Writes both tables (sorted on key, partitioned by part), then times each query on each."""
    data = (spark.range(0, rows, 1, 8)
            .selectExpr(f"(id * 7919) % {rows} AS key", "CAST(id % 5 AS INT) AS part", "id AS v",
                        "named_struct('a', CAST(id % 1000 AS INT), 'b', CONCAT('b', CAST(id AS STRING))) AS s",
                        "CONCAT('label', CAST(id % 97 AS STRING)) AS label")
            .repartitionByRange(files, "key").sortWithinPartitions("key"))
    paths = {}
    for mode in ("none", "name"):
        path = str(SCRATCH / mode)
        spark.sql(f"CREATE TABLE silt.`{path}` (key BIGINT, part INT, v BIGINT, s STRUCT<a: INT, b: STRING>, label STRING) "
                  f"USING silt PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = '{mode}')")
        secs, _ = timed(lambda: data.write.format("silt").mode("append").save(path))
        say(f"  column_mapping: wrote the {mode} table in {secs:.1f} s")
        paths[mode] = path
    lo = rows // 3
    hi = lo + rows // 1000

    def run(mode, sql):
        spark.read.format("silt").load(paths[mode]).createOrReplaceTempView("t")
        return timed(lambda: [tuple(r) for r in spark.sql(sql.format(lo=lo, hi=hi)).collect()])

    out = {"benchmark": "column_mapping", "rows": rows, "files_per_table_target": files, "queries": {}}
    for name, sql in QUERIES.items():
        seconds = {"none": [], "name": []}
        answers = {"none": set(), "name": set()}
        for mode in ("none", "name"):
            run(mode, sql)  # warm-up
        for i in range(reps):
            for mode in alternating(("none", "name"), i):
                secs, ans = run(mode, sql)
                seconds[mode].append(secs)
                answers[mode].add(tuple(ans))
                say(f"  {name} [{mode}] rep {i}: {secs:6.3f} s")
        plain, mapped = statistics.median(seconds["none"]), statistics.median(seconds["name"])
        out["queries"][name] = {"sql": sql, "seconds": seconds, "median_seconds": {"plain": plain, "name_mode": mapped},
                                "ratio_mapped_over_plain": mapped / plain,
                                "same_answer": answers["none"] == answers["name"] and len(answers["none"]) == 1}
    return out


def parser():
    """The column_mapping benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench column_mapping", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=6_000_000, help="rows of each table")
    ap.add_argument("--reps", type=int, default=5, help="repetitions of each query on each table")
    return ap


def main(argv):
    """Runs the column_mapping benchmark; writes results/column_mapping.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_column_mapping(spark, args.rows, args.reps), SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = []
    for name, q in r["queries"].items():
        m = q["median_seconds"]
        rows.append(("column_mapping", f"{name}: plain / name mode",
                     f"{m['plain']:.3f} s / {m['name_mode']:.3f} s ({q['ratio_mapped_over_plain']:.2f}x)"))
        rows.append(("column_mapping", f"{name}: same answer", str(q["same_answer"])))
    return rows
