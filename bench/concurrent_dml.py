"""concurrent_dml: four writers on disjoint slices of one table, with and without row-level concurrency.

The table: ROWS rows (id, v), unpartitioned, deletion vectors on, in FILES files, each file holding
ids from every slice (row i in file i % FILES), so that every statement touches every file. Four
writer threads share one session and run statements back to back for SECONDS, in two workloads:

ranges: each writer owns a quarter of the ids, a key range, which file statistics separate.
  update-0, update-1  UPDATE t SET v = v + 1 WHERE id BETWEEN a AND b (a slice of SLICE ids of its range)
  delete              DELETE FROM t WHERE id BETWEEN a AND b (a slice of SLICE / 10 ids of its range)
  merge               MERGE of SLICE source rows: half update ids of its range, half insert new ids above
                      ROWS; ON t.id = s.id AND t.id >= <its range's start> (Delta Lake's advice: name
                      the range, so that other writers' new files are known not to hold matching rows)

hash: writer k owns the ids with pmod(hash(id), 4) = k, which statistics cannot separate: every new
file spans the whole id range. Each statement names its slice and a batch of its ids:
  update-0, update-1  UPDATE t SET v = v + 1 WHERE pmod(hash(id), 4) = k AND id IN (SLICE ids of its slice)
  delete              DELETE FROM t WHERE pmod(hash(id), 4) = 2 AND id IN (SLICE / 10 ids)
  merge               MERGE of SLICE source rows (half existing ids of its slice, half new ones above ROWS)
                      ON t.id = s.id AND pmod(hash(t.id), 4) = 3

A statement that fails with a concurrent-modification exception is retried until it commits. Runs,
each in a fresh copy of the table: Silt (row-level concurrency on), Silt with
`spark.silt.rowLevelConcurrency.enabled = false`, and the reference Delta Lake (its own process).
Reported: statements committed per minute, the share of attempts that failed (each retried), the
share of commits that lost a race inside the engine and were rebased (version > read version + 1),
and the rows of concurrent commits' files Silt read to rule out a conflict per commit
(`numConflictCheckedRows`). Afterwards every run's table is checked against a model of the
committed statements: per slice, the row count, distinct ids (no duplicate) and sum of v (no lost or
doubled change).

Targets (Silt, row-level, in both workloads): no failed attempt, the model holds, and commits per
minute >= 3x the reference's.

    python -m bench concurrent_dml [--rows N] [--files N] [--seconds S] [--slice N] [--workloads ranges,hash]

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
    ap.add_argument("--workloads", default=",".join(WORKLOADS), help="which of " + ", ".join(WORKLOADS))
    return ap


WORKLOADS = ("ranges", "hash")


def spark_hash(i):
    """Spark's hash(id) of a BIGINT (Murmur3 x86 32, seed 42, over its two 32-bit halves), as a signed int."""
    def mix_k1(k):
        k = (k * 0xcc9e2d51) & 0xffffffff
        k = ((k << 15) | (k >> 17)) & 0xffffffff
        return (k * 0x1b873593) & 0xffffffff

    def mix_h1(h, k):
        h ^= k
        h = ((h << 13) | (h >> 19)) & 0xffffffff
        return (h * 5 + 0xe6546b64) & 0xffffffff
    u = i & 0xffffffffffffffff
    h = mix_h1(mix_h1(42, mix_k1(u & 0xffffffff)), mix_k1(u >> 32))
    h ^= 8
    h ^= h >> 16
    h = (h * 0x85ebca6b) & 0xffffffff
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & 0xffffffff
    h ^= h >> 16
    return h - (1 << 32) if h >= 1 << 31 else h


def hash_slice(i):
    """The writer slice (0-3) of id i in the hash workload: pmod(hash(id), 4)."""
    return spark_hash(i) % 4


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

    def __init__(self, spark, fmt, path, name, rows, slice_, stop_at, workload="ranges"):
        self.spark, self.table, self.name, self.stop_at = spark, f"{fmt}.`{path}`", name, stop_at
        self.workload, self.k = workload, WRITERS.index(name)
        self.start, self.end = ranges(rows)[name]
        self.rows, self.slice = rows, slice_
        self.rng = random.Random(name)
        self.committed = self.failed = 0
        self.updated = {}    # id -> times +1 (UPDATE)
        self.deleted = set()
        self.merged = {}     # id -> v set by the MERGE (updated or inserted)
        self.next_new = rows + 1_000_000 * WRITERS.index(name)
        self.error = None

    def ids_of_slice(self, count, low, high):
        """`count` distinct random ids in [low, high) of this writer's hash slice."""
        out = set()
        while len(out) < count:
            i = self.rng.randrange(low, high)
            if hash_slice(i) == self.k:
                out.add(i)
        return sorted(out)

    def hash_statement(self, n):
        """The n-th statement of the hash workload and how to record it once committed."""
        mine = f"pmod(hash(id), 4) = {self.k}"
        if self.name.startswith("update") or self.name == "delete":
            batch = self.ids_of_slice(self.slice if self.name != "delete" else self.slice // 10, 0, self.rows)
            listed = ", ".join(map(str, batch))
            if self.name == "delete":
                return f"DELETE FROM {self.table} WHERE {mine} AND id IN ({listed})", lambda: self.deleted.update(batch)
            return self.update(f"{mine} AND id IN ({listed})", batch)
        existing = self.ids_of_slice(self.slice // 2, 0, self.rows)
        new = []
        while len(new) < self.slice - len(existing):
            if hash_slice(self.next_new) == self.k:
                new.append(self.next_new)
            self.next_new += 1
        return self.merge(n, existing + new, f"pmod(hash(t.id), 4) = {self.k}")

    def update(self, where, ids):
        """An UPDATE adding 1 to v of `ids` (selected by `where`), and how to record it."""
        def record():
            for i in ids:
                self.updated[i] = self.updated.get(i, 0) + 1
        return f"UPDATE {self.table} SET v = v + 1 WHERE {where}", record

    def merge(self, n, ids, slice_condition):
        """The n-th MERGE: `ids` set to v = n + 1, updated or inserted; the ON condition names the writer's slice."""
        value = n + 1
        source = ", ".join(f"({i})" for i in ids)

        def record():
            for i in ids:
                self.merged[i] = value
        return (f"MERGE INTO {self.table} t USING (SELECT col1 AS id, {value}L AS v FROM VALUES {source}) s "
                f"ON t.id = s.id AND {slice_condition} WHEN MATCHED THEN UPDATE SET v = s.v "
                "WHEN NOT MATCHED THEN INSERT *"), record

    def statement(self, n):
        """The n-th statement and how to record it once committed."""
        if self.workload == "hash":
            return self.hash_statement(n)
        top = min(self.end, self.rows)
        if self.name.startswith("update"):
            a = self.rng.randrange(self.start, top - self.slice)
            b = a + self.slice - 1
            return self.update(f"id BETWEEN {a} AND {b}", range(a, b + 1))
        if self.name == "delete":
            a = self.rng.randrange(self.start, top - self.slice // 10)
            b = a + self.slice // 10 - 1
            return f"DELETE FROM {self.table} WHERE id BETWEEN {a} AND {b}", lambda: self.deleted.update(range(a, b + 1))
        existing = self.rng.sample(range(self.start, top), self.slice // 2)
        new = list(range(self.next_new, self.next_new + self.slice - len(existing)))
        self.next_new += len(new)
        return self.merge(n, existing + new, f"t.id >= {self.start}")

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


def expected(writers, rows, base):
    """Per writer's slice: (rows, sum of v) the model gives, from the committed statements; `base`: each slice's rows at the start."""
    out = {}
    for w in writers:
        if w.name == "merge":
            count = base[w.name] + sum(1 for i in w.merged if i >= rows)
            total = sum(w.merged.values())  # untouched ids keep v = 0
        elif w.name == "delete":
            count, total = base[w.name] - len(w.deleted), 0
        else:
            count, total = base[w.name], sum(w.updated.values())
        out[w.name] = (count, total)
    return out


def slice_of(workload, rows):
    """The SQL giving each row's writer slice (0-3) in a workload."""
    if workload == "hash":
        return "pmod(hash(id), 4)"
    bounds = ranges(rows)
    return "CASE " + " ".join(f"WHEN id < {bounds[w][1]} THEN {i}" for i, w in enumerate(WRITERS[:-1])) + " ELSE 3 END"


def base_counts(spark, workload, rows, ids):
    """Rows of each writer's slice in the table as created, ids 0 until `ids` (Spark's own hash: checked against the writers')."""
    got = {r["k"]: r["n"] for r in spark.sql(f"SELECT {slice_of(workload, rows)} AS k, count(*) AS n FROM range(0, {ids}) "
                                             "GROUP BY 1").collect()}
    if workload == "hash":
        sample = spark.sql(f"SELECT id, pmod(hash(id), 4) AS k FROM range(0, {rows}, {max(1, rows // 2000)}) "
                           "UNION ALL SELECT id, pmod(hash(id), 4) FROM VALUES (-1L), (4294967296L), (-4294967297L) "
                           "AS v(id)").collect()
        wrong = [r["id"] for r in sample if hash_slice(r["id"]) != r["k"]]
        assert not wrong, f"the writers' hash disagrees with Spark's for ids {wrong[:5]}"
    return {w: got.get(i, 0) for i, w in enumerate(WRITERS)}


def actual(spark, fmt, path, rows, workload):
    """Per writer's slice: (rows, distinct ids, sum of v) the table holds."""
    r = spark.sql(f"SELECT {slice_of(workload, rows)} AS k, count(*) AS n, count(DISTINCT id) AS d, "
                  f"coalesce(sum(v), 0) AS s FROM {fmt}.`{path}` GROUP BY 1").collect()
    by = {x["k"]: (x["n"], x["d"], x["s"]) for x in r}
    return {w: by.get(i, (0, 0, 0)) for i, w in enumerate(WRITERS)}


def races(spark, fmt, path, first_version):
    """From the history after `first_version`: commits that were rebased on a race they lost, and rows checked."""
    history = spark.sql(f"DESCRIBE HISTORY {fmt}.`{path}`").where(f"version > {first_version}").collect()
    rebased = sum(1 for h in history if h["readVersion"] is not None and h["version"] > h["readVersion"] + 1)
    checked = sum(int((h["operationMetrics"] or {}).get("numConflictCheckedRows", 0)) for h in history)
    return len(history), rebased, checked


def run_config(spark, fmt, folder, label, p, workload):
    """Creates a fresh table, runs the four writers for the given seconds, checks the model."""
    path = str(folder / f"{workload}-{label}")
    create(spark, fmt, path, p["rows"], p["files"])
    spark.sql(f"SELECT count(*) FROM {fmt}.`{path}`").collect()
    base = base_counts(spark, workload, p["rows"], p["rows"] // p["files"] * p["files"])
    first_version = spark.sql(f"DESCRIBE HISTORY {fmt}.`{path}`").agg({"version": "max"}).first()[0]
    stop_at = time.monotonic() + p["seconds"]
    started = time.monotonic()
    writers = [Writer(spark, fmt, path, w, p["rows"], p["slice"], stop_at, workload) for w in WRITERS]
    threads = [threading.Thread(target=w.run, name=w.name) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    minutes = (time.monotonic() - started) / 60
    want, got = expected(writers, p["rows"], base), actual(spark, fmt, path, p["rows"], workload)
    model_holds = all(got[w][0] == want[w][0] and got[w][1] == got[w][0] and got[w][2] == want[w][1] for w in WRITERS)
    committed, failed = sum(w.committed for w in writers), sum(w.failed for w in writers)
    commits, rebased, checked = races(spark, fmt, path, first_version)
    result = {"committed": committed, "failed_attempts": failed, "commits_per_minute": committed / minutes,
              "failed_share": failed / max(1, committed + failed), "model_holds": model_holds,
              "rebased_commits": rebased, "rebased_share": rebased / max(1, commits),
              "conflict_checked_rows": checked, "checked_rows_per_commit": checked / max(1, commits),
              "per_writer": {w.name: {"committed": w.committed, "failed": w.failed} for w in writers},
              "errors": [w.error for w in writers if w.error], "expected": want, "actual": got}
    say(f"  {workload} {label}: {committed} committed ({result['commits_per_minute']:.1f}/min), {failed} failed attempts, "
        f"{rebased} rebased, {result['checked_rows_per_commit']:.0f} rows checked a commit, "
        f"model {'holds' if model_holds else 'BROKEN'}{', errors ' + str(result['errors']) if result['errors'] else ''}")
    return result


def run_engine(p):
    """One engine's process: Silt with and without row-level concurrency, or the reference."""
    engine, scratch = p["engine"], Path(p["scratch"])
    with bench_session(scratch, engine, REFERENCE_CONF if engine == "delta" else None) as spark:
        fmt = "silt" if engine == "silt" else "delta"
        warm = dict(p, rows=min(p["rows"], 40_000), seconds=min(p["seconds"], 10.0))
        out = {}
        for workload in p["workloads"]:
            run_config(spark, fmt, scratch, "warm-up", warm, workload)
            if engine == "delta":
                out[workload] = {"reference": run_config(spark, fmt, scratch, "reference", p, workload)}
                continue
            runs = {"row_level": run_config(spark, fmt, scratch, "row_level", p, workload)}
            spark.conf.set(ROW_LEVEL, "false")
            runs["file_level"] = run_config(spark, fmt, scratch, "file_level", p, workload)
            spark.conf.unset(ROW_LEVEL)
            out[workload] = runs
        return out


def measure(args):
    """One process per engine, then the comparison; the scratch folder is gone afterwards."""
    workloads = [w for w in args.workloads.split(",") if w]
    assert workloads and set(workloads) <= set(WORKLOADS), f"--workloads takes {', '.join(WORKLOADS)}"
    rm(SCRATCH)
    try:
        by_engine = {}
        for engine in ("silt", "delta"):
            params = {"engine": engine, "scratch": str(SCRATCH / engine), "rows": args.rows, "files": args.files,
                      "seconds": args.seconds, "slice": args.slice, "workloads": workloads}
            by_engine[engine] = call("bench.concurrent_dml:run_engine", params, f"concurrent_dml-{engine}")
    finally:
        rm(SCRATCH)
    out = {"benchmark": "concurrent_dml", "rows": args.rows, "files": args.files, "seconds": args.seconds,
           "slice": args.slice, "workloads": {}}
    for workload in workloads:
        runs = {**by_engine["silt"][workload], **by_engine["delta"][workload]}
        row_level = runs["row_level"]
        speedup = row_level["commits_per_minute"] / max(1e-9, runs["reference"]["commits_per_minute"])
        ok = row_level["failed_attempts"] == 0 and row_level["model_holds"] and speedup >= TARGET_SPEEDUP \
            and not row_level["errors"]
        out["workloads"][workload] = {
            "runs": runs, "row_level_over_reference": speedup,
            "row_level_over_file_level": row_level["commits_per_minute"] / max(1e-9, runs["file_level"]["commits_per_minute"]),
            "all_models_hold": all(r["model_holds"] for r in runs.values()),
            "targets": {"failed_attempts": row_level["failed_attempts"], "speedup": speedup, "ok": ok}}
    out["all_targets_met"] = all(w["targets"]["ok"] for w in out["workloads"].values())
    return out


def main(argv):
    """Runs the concurrent_dml benchmark; writes results/concurrent_dml.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda: measure(args))


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    rows = []
    for workload, w in r["workloads"].items():
        rows.append(("concurrent_dml", f"{workload}: 4 writers, {r['rows']} rows in {r['files']} files, {r['seconds']:.0f} s",
                     "commits/min; failed share; rebased share; rows checked/commit; model"))
        for label in ("row_level", "file_level", "reference"):
            x = w["runs"][label]
            rows.append(("concurrent_dml", f"  {label}", f"{x['commits_per_minute']:.1f}; {x['failed_share']:.2f}; "
                         f"{x['rebased_share']:.2f}; {x['checked_rows_per_commit']:.0f}; "
                         f"{'holds' if x['model_holds'] else 'BROKEN'}"))
            rows.append(("concurrent_dml", "    committed by writer",
                         ", ".join(f"{n} {x['per_writer'][n]['committed']}" for n in WRITERS)))
        rows.append(("concurrent_dml", "  row level / reference",
                     f"{w['row_level_over_reference']:.2f}x{' ok' if w['targets']['ok'] else ' BELOW TARGET'}"))
    return rows
