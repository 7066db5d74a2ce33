"""concurrent_dml: four writers on disjoint key ranges of one table, with and without row-level concurrency.

The table: ROWS rows (id, v), unpartitioned, deletion vectors on, in FILES files, each file holding
ids from every range (row i in file i % FILES), so that every statement touches every file. Four
writer threads share one session and run statements back to back for SECONDS:

  update-0, update-1  UPDATE t SET v = v + 1 WHERE id BETWEEN a AND b (a slice of SLICE ids of its range)
  delete              DELETE FROM t WHERE id BETWEEN a AND b (a slice of SLICE / 10 ids of its range)
  merge               MERGE of SLICE source rows: half update ids of its range, half insert new ids above
                      ROWS; ON t.id = s.id AND t.id >= <its range's start> (Delta Lake's advice: name
                      the range, so that other writers' new files are known not to hold matching rows)

A statement that fails with a concurrent-modification exception is retried until it commits. Runs,
each in a fresh copy of the table: Silt (row-level concurrency on), Silt with
`spark.silt.rowLevelConcurrency.enabled = false`, and the reference Delta Lake (its own process).
Reported: statements committed per minute, and the share of attempts that failed (each retried).
Afterwards every run's table is checked against a model of the committed statements: per range, the
row count, distinct ids (no duplicate) and sum of v (no lost or doubled change).

Targets (Silt, row-level): no failed attempt, the model holds, and commits per minute >= 3x the
reference's.

    python -m bench concurrent_dml [--rows N] [--files N] [--seconds S] [--slice N]

A smoke run: `python -m bench concurrent_dml --rows 100000 --seconds 20`.
"""
import argparse
import random
import threading
import time
from pathlib import Path

from bench.common import bench_session, measure_and_save, rm, say, SCRATCH_DIR
from bench.peers_engine import REFERENCE_CONF
from bench.runner import call

SCRATCH = SCRATCH_DIR / "concurrent_dml"
WRITERS = ("update-0", "update-1", "delete", "merge")
TARGET_SPEEDUP = 3.0
ROW_LEVEL = "spark.silt.rowLevelConcurrency.enabled"


def parser():
    """The concurrent_dml benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench concurrent_dml", description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=5_000_000, help="rows of the table")
    ap.add_argument("--files", type=int, default=4, help="files of the table")
    ap.add_argument("--seconds", type=float, default=120.0, help="how long the writers run")
    ap.add_argument("--slice", type=int, default=1000, help="ids an UPDATE or MERGE changes")
    return ap


def ranges(rows):
    """Each writer's [start, end) of ids; the MERGE's runs on above the table's ids, where it inserts."""
    quarter = rows // 4
    return {w: (i * quarter, (i + 1) * quarter if w != "merge" else 1 << 60) for i, w in enumerate(WRITERS)}


def create(spark, fmt, path, rows, files):
    """The table: ids 0 until rows, v = 0, each of `files` files holding every files-th id."""
    per_file = rows // files
    spark.sql(f"CREATE TABLE {fmt}.`{path}` (id BIGINT, v BIGINT) USING {fmt} "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.range(0, per_file * files, 1, files) \
        .selectExpr(f"(id % {per_file}) * {files} + floor(id / {per_file}) AS id", "0L AS v") \
        .write.format(fmt).mode("append").save(path)


class Writer:
    """One writer's thread: its statements in a seeded order, retried until each commits; a model of its effect."""

    def __init__(self, spark, fmt, path, name, rows, slice_, stop_at):
        self.spark, self.table, self.name, self.stop_at = spark, f"{fmt}.`{path}`", name, stop_at
        self.start, self.end = ranges(rows)[name]
        self.rows, self.slice = rows, slice_
        self.rng = random.Random(name)
        self.committed = self.failed = 0
        self.updated = {}    # id -> times +1 (UPDATE)
        self.deleted = set()
        self.merged = {}     # id -> v set by the MERGE (updated or inserted)
        self.next_new = rows + 1_000_000 * WRITERS.index(name)
        self.error = None

    def statement(self, n):
        """The n-th statement and how to record it once committed."""
        top = min(self.end, self.rows)
        if self.name.startswith("update"):
            a = self.rng.randrange(self.start, top - self.slice)
            b = a + self.slice - 1

            def record():
                for i in range(a, b + 1):
                    self.updated[i] = self.updated.get(i, 0) + 1
            return f"UPDATE {self.table} SET v = v + 1 WHERE id BETWEEN {a} AND {b}", record
        if self.name == "delete":
            a = self.rng.randrange(self.start, top - self.slice // 10)
            b = a + self.slice // 10 - 1
            return f"DELETE FROM {self.table} WHERE id BETWEEN {a} AND {b}", lambda: self.deleted.update(range(a, b + 1))
        existing = self.rng.sample(range(self.start, top), self.slice // 2)
        new = list(range(self.next_new, self.next_new + self.slice - len(existing)))
        self.next_new += len(new)
        value = n + 1
        source = ", ".join(f"({i})" for i in existing + new)

        def record():
            for i in existing + new:
                self.merged[i] = value
        return (f"MERGE INTO {self.table} t USING (SELECT col1 AS id, {value}L AS v FROM VALUES {source}) s "
                f"ON t.id = s.id AND t.id >= {self.start} WHEN MATCHED THEN UPDATE SET v = s.v "
                "WHEN NOT MATCHED THEN INSERT *"), record

    def run(self):
        try:
            n = 0
            while time.monotonic() < self.stop_at:
                sql, record = self.statement(n)
                while time.monotonic() < self.stop_at:
                    try:
                        self.spark.sql(sql).collect()
                    except Exception as e:  # noqa: BLE001 - a conflict is retried, anything else ends the run
                        if "Concurrent" not in f"{type(e).__name__} {e}":
                            raise
                        self.failed += 1
                        continue
                    record()
                    self.committed += 1
                    break
                n += 1
        except Exception as e:  # noqa: BLE001 - reported by the run
            self.error = repr(e)[:2000]


def expected(writers, rows):
    """Per writer's range: (rows, sum of v) the model gives, from the committed statements."""
    out = {}
    for w in writers:
        top = min(w.end, rows)
        if w.name == "merge":
            count = top - w.start + sum(1 for i in w.merged if i >= rows)
            total = sum(w.merged.values())  # untouched ids keep v = 0
        elif w.name == "delete":
            count, total = top - w.start - len(w.deleted), 0
        else:
            count, total = top - w.start, sum(w.updated.values())
        out[w.name] = (count, total)
    return out


def actual(spark, fmt, path, rows):
    """Per writer's range: (rows, distinct ids, sum of v) the table holds."""
    out = {}
    for name, (start, end) in ranges(rows).items():
        r = spark.sql(f"SELECT count(*) AS n, count(DISTINCT id) AS d, coalesce(sum(v), 0) AS s FROM {fmt}.`{path}` "
                      f"WHERE id >= {start} AND id < {end}").first()
        out[name] = (r["n"], r["d"], r["s"])
    return out


def run_config(spark, fmt, folder, label, p):
    """Creates a fresh table, runs the four writers for the given seconds, checks the model."""
    path = str(folder / label)
    create(spark, fmt, path, p["rows"], p["files"])
    spark.sql(f"SELECT count(*) FROM {fmt}.`{path}`").collect()
    stop_at = time.monotonic() + p["seconds"]
    started = time.monotonic()
    writers = [Writer(spark, fmt, path, w, p["rows"], p["slice"], stop_at) for w in WRITERS]
    threads = [threading.Thread(target=w.run, name=w.name) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    minutes = (time.monotonic() - started) / 60
    want, got = expected(writers, p["rows"]), actual(spark, fmt, path, p["rows"])
    model_holds = all(got[w][0] == want[w][0] and got[w][1] == got[w][0] and got[w][2] == want[w][1] for w in WRITERS)
    committed, failed = sum(w.committed for w in writers), sum(w.failed for w in writers)
    result = {"committed": committed, "failed_attempts": failed, "commits_per_minute": committed / minutes,
              "failed_share": failed / max(1, committed + failed), "model_holds": model_holds,
              "per_writer": {w.name: {"committed": w.committed, "failed": w.failed} for w in writers},
              "errors": [w.error for w in writers if w.error], "expected": want, "actual": got}
    say(f"  {label}: {committed} committed ({result['commits_per_minute']:.1f}/min), {failed} failed attempts, "
        f"model {'holds' if model_holds else 'BROKEN'}{', errors ' + str(result['errors']) if result['errors'] else ''}")
    return result


def run_engine(p):
    """One engine's process: Silt with and without row-level concurrency, or the reference."""
    engine, scratch = p["engine"], Path(p["scratch"])
    with bench_session(scratch, engine, REFERENCE_CONF if engine == "delta" else None) as spark:
        fmt = "silt" if engine == "silt" else "delta"
        warm = dict(p, rows=min(p["rows"], 40_000), seconds=min(p["seconds"], 10.0))
        run_config(spark, fmt, scratch, "warm-up", warm)
        if engine == "delta":
            return {"reference": run_config(spark, fmt, scratch, "reference", p)}
        out = {"row_level": run_config(spark, fmt, scratch, "row_level", p)}
        spark.conf.set(ROW_LEVEL, "false")
        out["file_level"] = run_config(spark, fmt, scratch, "file_level", p)
        spark.conf.unset(ROW_LEVEL)
        return out


def measure(args):
    """One process per engine, then the comparison; the scratch folder is gone afterwards."""
    rm(SCRATCH)
    try:
        runs = {}
        for engine in ("silt", "delta"):
            params = {"engine": engine, "scratch": str(SCRATCH / engine), "rows": args.rows, "files": args.files,
                      "seconds": args.seconds, "slice": args.slice}
            runs.update(call("bench.concurrent_dml:run_engine", params, f"concurrent_dml-{engine}"))
    finally:
        rm(SCRATCH)
    row_level = runs["row_level"]
    speedup = row_level["commits_per_minute"] / max(1e-9, runs["reference"]["commits_per_minute"])
    ok = row_level["failed_attempts"] == 0 and row_level["model_holds"] and speedup >= TARGET_SPEEDUP \
        and not row_level["errors"]
    return {"benchmark": "concurrent_dml", "rows": args.rows, "files": args.files, "seconds": args.seconds,
            "slice": args.slice, "runs": runs,
            "row_level_over_reference": speedup,
            "row_level_over_file_level": row_level["commits_per_minute"] / max(1e-9, runs["file_level"]["commits_per_minute"]),
            "all_models_hold": all(r["model_holds"] for r in runs.values()),
            "targets": {"failed_attempts": row_level["failed_attempts"], "speedup": speedup, "ok": ok},
            "all_targets_met": ok}


def main(argv):
    """Runs the concurrent_dml benchmark; writes results/concurrent_dml.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda: measure(args))


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = [("concurrent_dml", f"4 writers, {r['rows']} rows in {r['files']} files, {r['seconds']:.0f} s",
             "commits/min; failed share; model")]
    for label in ("row_level", "file_level", "reference"):
        x = r["runs"][label]
        rows.append(("concurrent_dml", f"  {label}", f"{x['commits_per_minute']:.1f}; {x['failed_share']:.2f}; "
                     f"{'holds' if x['model_holds'] else 'BROKEN'}"))
        rows.append(("concurrent_dml", "    committed by writer",
                     ", ".join(f"{w} {x['per_writer'][w]['committed']}" for w in WRITERS)))
    rows.append(("concurrent_dml", "  row level / reference",
                 f"{r['row_level_over_reference']:.2f}x{' ok' if r['all_targets_met'] else ' BELOW TARGET'}"))
    return rows
