"""checkpoint_open: opening the latest snapshot of a long log against a short one.

Two tables built by Silt itself, one commit per `INSERT INTO silt.`<t>` VALUES (i, 'v<i>')` after
CREATE TABLE ... TBLPROPERTIES ('delta.checkpointInterval' = '10') (a checkpoint after every 10th
commit, then log cleanup): a long one (target 10,000 commits; the INSERT loop stops when its time
budget, default 900 s, is spent, and the count reached is reported, with per-INSERT latencies in
the JSON) and a short one (100 commits). Each commit adds one file, so the long table's snapshot
also holds more files; a third log ("wide") has 100 commits holding as many files as the long one.
"Open" = build the latest snapshot in a JVM that has never seen the path (Silt caches each path's
log and latest snapshot in the JVM): every timed open is of a fresh hard-link copy of the table's
_delta_log/ (the data files are not needed to open it), by
  silt_read  spark.read.format("silt").load(copy).schema
  silt_log   io.silt.log.TableLog.forPath(spark, copy).latest()   (the log alone, no DataFrame: version,
             protocol and metadata; the file list is read when first used)
  silt_files the same and its numFiles(): the snapshot's file list too (report only)
  silt_list  TableLog.forPath(spark, copy).listing()   (its first step: listing _delta_log/; report only)
  delta_rs   deltalake.DeltaTable(copy)   (delta-rs, in this Python process; report only)
alternating long / short / wide, OPEN_REPS (7) times each after a warm-up; ratio: median long / median
short and long / wide (target <= 1.5 for Silt). Then one more CHECKPOINT of each table, with the Spark stages it
runs (what the checkpointing commits cost).

One JVM (local[2], driver memory 4g, 8 shuffle partitions). Scratch tables go to
bench/results/tmp/checkpoint_open/ and are removed at the end. About 15-18 minutes with the
defaults on 2 cores (the INSERT loop's budget is most of it).

    python -m bench checkpoint_open [--commits N] [--short N] [--build-budget S] [--open-reps R]
"""
import argparse
import statistics
import time
from pathlib import Path

from bench.common import SCRATCH_DIR, alternating, folder_stats, measure_and_save, rm, say, timed
from bench.log_open import log_copy, openers, snapshot_file_count
from bench.machine_load import Accounting, busy_rows, busy_runs

SCRATCH = SCRATCH_DIR / "checkpoint_open"
TARGET_OPEN = 1.5
INTERVAL = 10


def _split(seconds, first_version):
    """INSERT times of consecutive versions split into (plain commits, checkpointing commits)."""
    tagged = list(enumerate(seconds, first_version))
    return [s for v, s in tagged if v % INTERVAL], [s for v, s in tagged if v % INTERVAL == 0]


def build_log(spark, path, commits, budget):
    """CREATE TABLE (version 0) then one INSERT per commit until `commits` commits or the budget."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING) USING silt "
              f"TBLPROPERTIES ('delta.checkpointInterval' = '{INTERVAL}')")
    per = []
    t0 = time.perf_counter()
    for version in range(1, commits):
        if time.perf_counter() - t0 > budget:
            break
        secs, _ = timed(lambda: spark.sql(f"INSERT INTO silt.`{path}` VALUES ({version}, 'v{version}')"))
        per.append(secs)
        if version % 1000 == 0:
            plain, cps = _split(per[-1000:], version - 999)
            say(f"    {version:6,} commits, {time.perf_counter() - t0:5.0f} s; last 1000 INSERTs, medians: "
                f"{statistics.median(plain) * 1000:.0f} ms, checkpointing ones {statistics.median(cps) * 1000:.0f} ms")
    total = time.perf_counter() - t0
    made = len(per) + 1
    plain, cps = _split(per, 1)
    by_thousand = []
    for j in range(0, len(per), 1000):
        p, c = _split(per[j:j + 1000], j + 1)
        by_thousand.append({"versions": f"{j + 1}-{j + len(p) + len(c)}", "median_ms": round(statistics.median(p) * 1000, 1),
                            "checkpointing_median_ms": round(statistics.median(c) * 1000, 1) if c else None})
    checkpointing = [[v, round(x * 1000, 1)] for v, x in enumerate(per, 1) if v % INTERVAL == 0]
    return {"commits": made, "latest_version": made - 1, "seconds": total, "commits_per_second": len(per) / total,
            "checkpointing_insert_ms_by_version": checkpointing,
            "median_insert_ms": statistics.median(plain) * 1000 if plain else None,
            "median_checkpointing_insert_ms": statistics.median(cps) * 1000 if cps else None,
            "by_thousand": by_thousand, "reached_target": made >= commits}


def build_wide(spark, path, commits, files):
    """A log of `commits` commits holding `files` files, like the long log's: same table size, short history."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING) USING silt "
              f"TBLPROPERTIES ('delta.checkpointInterval' = '{INTERVAL}')")
    per = -(-files // (commits - 1))
    t0 = time.perf_counter()
    for c in range(commits - 1):
        n = min(per, files - c * per)
        if n <= 0:
            break
        spark.range(c * per, c * per + n, 1, n).selectExpr("id", "concat('v', CAST(id AS STRING)) AS v") \
            .write.format("silt").mode("append").save(str(path))
    return time.perf_counter() - t0


def bench_open(spark, acct, tables, reps):
    """Times every opener on fresh copies of each table's log, alternating; medians and ratios."""
    ops = openers(spark)
    seq = [0]

    def fresh(kind):
        seq[0] += 1
        return log_copy(tables[kind], SCRATCH / "open" / f"{kind}-{seq[0]}")

    checks = {}
    for name, fn in ops.items():  # warm-up, and what each reader sees
        for kind in tables:
            checks[f"{name} {kind}"] = fn(fresh(kind))
    seconds = {name: {k: [] for k in tables} for name in ops}
    runs = []  # one accounting per rep: an open (~0.1 s) is too short for the CPU tick counters
    kinds = list(tables)

    def one_rep(order):
        for name, kind, p in order:
            seconds[name][kind].append(timed(lambda: ops[name](p))[0])

    for i in range(reps):
        order = [(name, kind, fresh(kind)) for name in ops for kind in alternating(kinds, i)]
        runs.append(acct.run(lambda: one_rep(order))[2])
        rm(SCRATCH / "open")
        say(f"  open rep {i}: " + ", ".join(f"{n} " + "/".join(f"{seconds[n][k][-1] * 1000:.0f}" for k in kinds) + " ms"
                                            for n in ops) + f" ({'/'.join(kinds)})")
    rm(SCRATCH / "open")
    med = {n: {k: statistics.median(v) for k, v in s.items()} for n, s in seconds.items()}
    ratios = {n: m["long"] / m["short"] for n, m in med.items()}
    same_size = {n: m["long"] / m["wide"] for n, m in med.items()} if "wide" in kinds else None
    return {"seconds": seconds, "median_seconds": med, "ratio_long_over_short": ratios,
            "ratio_long_over_wide": same_size,
            "what_each_reader_saw": checks, "runs": runs}


def profile_checkpoint(spark, acct, path):
    """One CHECKPOINT of `path` with the Spark stages it ran (the last commit's snapshot is cached)."""
    secs, _, a = acct.run(lambda: spark.sql(f"CHECKPOINT '{path}'").collect())
    names = {}
    for st in a["stages"] or []:
        key = st["name"].split(" at ")[-1].strip() if not st["name"].startswith("$") else "(unnamed)"
        names[key] = names.get(key, 0) + 1
    return {"seconds": secs, "stages": len(a["stages"] or []), "stages_by_call_site": names,
            "checkpoints_in_log": len(list((Path(path) / "_delta_log").glob("*.checkpoint.parquet"))), "run": a}


def bench_checkpoint_open(spark, commits=10_000, short=100, budget=900.0, open_reps=7):
    """Builds the three logs, times their fresh opens and one more CHECKPOINT; returns the result."""
    acct = Accounting(spark)
    tables = {"long": SCRATCH / "long", "short": SCRATCH / "short"}
    say(f"  building the short log ({short} commits):")
    built_short = build_log(spark, tables["short"], short, budget)
    say(f"    {built_short['commits']} commits in {built_short['seconds']:.1f} s")
    say(f"  building the long log (target {commits:,} commits, budget {budget:.0f} s):")
    built_long = build_log(spark, tables["long"], commits, budget)
    say(f"    {built_long['commits']:,} commits in {built_long['seconds']:.0f} s "
        f"({built_long['commits_per_second']:.1f} commits/s)")
    n_log, b_log = folder_stats(tables["long"] / "_delta_log")
    long_files = snapshot_file_count(spark, tables["long"])
    tables["wide"] = SCRATCH / "wide"
    wide_secs = build_wide(spark, tables["wide"], short, long_files)
    say(f"  a {short}-commit log with the long log's {long_files:,} files built in {wide_secs:.0f} s")
    opened = bench_open(spark, acct, tables, open_reps)
    # What one more checkpoint of each table costs, and the Spark stages it runs (after the
    # opens: it writes into the tables, whose files the open copies shared by hard links).
    profiles = {k: profile_checkpoint(spark, acct, p) for k, p in tables.items()}
    for k, p in profiles.items():
        say(f"  CHECKPOINT of the {k} log ({p['checkpoints_in_log']} checkpoints in it): {p['seconds']:.2f} s, "
            f"{p['stages']} Spark stages {p['stages_by_call_site']}")
    r = opened["ratio_long_over_short"]
    w = opened["ratio_long_over_wide"]
    targets = {f"open_{n}_long_over_{k}": {"target": TARGET_OPEN, "value": x[n], "ok": x[n] <= TARGET_OPEN}
               for n in ("silt_read", "silt_log") for k, x in (("short", r), ("wide", w))}
    all_runs = [(f"open rep {i}", a) for i, a in enumerate(opened["runs"])]
    result = {
        "benchmark": "checkpoint_open",
        "checkpoint_interval": INTERVAL,
        "build": {"long": built_long, "short": built_short, "long_log_files": n_log, "long_log_bytes": b_log,
                  "long_table_files": long_files, "wide_build_seconds": wide_secs,
                  "target_commits": commits, "budget_seconds": budget},
        "open": opened,
        "checkpoint_profiles": profiles,
        "targets": targets,
        "all_targets_met": all(t["ok"] for t in targets.values()),
        "busy_machine_runs": busy_runs(all_runs),
    }
    return result


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    b, o = r["build"], r["open"]
    lg, sh = b["long"], b["short"]
    ms = lambda x: f"{x * 1000:.0f} ms"
    ok = lambda n, k: "ok" if r["targets"][f"open_{n}_long_over_{k}"]["ok"] else "ABOVE TARGET"
    short_of = "" if lg["reached_target"] else f" (TARGET {b['target_commits']:,} NOT REACHED in the {b['budget_seconds']:.0f} s budget)"
    cps = lg["checkpointing_insert_ms_by_version"]
    name = "checkpoint_open"
    rows = [(name, f"long log built by INSERTs: commits{short_of}",
             f"{lg['commits']:,} in {lg['seconds']:.0f} s ({lg['commits_per_second']:.1f}/s)"),
            (name, "INSERT latency, median: plain / checkpointing commit",
             f"{lg['median_insert_ms']:.0f} / {lg['median_checkpointing_insert_ms']:.0f} ms"),
            (name, "  checkpointing INSERT at versions " + " / ".join(str(v) for v, _ in cps[:1] + cps[len(cps) // 2:][:1] + cps[-1:]),
             " / ".join(f"{x:.0f}" for _, x in cps[:1] + cps[len(cps) // 2:][:1] + cps[-1:]) + " ms" if cps else "-")]
    for k, p in r["checkpoint_profiles"].items():
        rows.append((name, f"  one more CHECKPOINT of the {k} log ({p['checkpoints_in_log']} checkpoints in it)",
                     f"{p['seconds']:.2f} s, {p['stages']} Spark stages"))
    for n, label in (("silt_read", "Silt spark.read...load().schema"), ("silt_log", "Silt TableLog.forPath().latest()"),
                     ("silt_files", "Silt latest().numFiles(): the file list too (report only)"),
                     ("silt_list", "  a full listing of _delta_log/ (report only)"),
                     ("delta_rs", "delta-rs DeltaTable() (report only)")):
        m = o["median_seconds"][n]
        tgt = f" (target <= {TARGET_OPEN})" if n in ("silt_read", "silt_log") else ""
        rows.append((name, f"open {label}: {lg['commits']:,} / {sh['commits']} commits / {sh['commits']} commits with "
                           f"{b.get('long_table_files', 0):,} files, medians",
                     f"{ms(m['long'])} / {ms(m['short'])} / {ms(m['wide'])}"))
        rows.append((name, f"  ratio long/short (table {b.get('long_table_files', 0):,} vs {sh['commits'] - 1} files){tgt}",
                     f"{o['ratio_long_over_short'][n]:.2f}x" + (f" {ok(n, 'short')}" if tgt else "")))
        rows.append((name, f"  ratio long/wide (same files, history {lg['commits']:,} vs {sh['commits']} commits){tgt}",
                     f"{o['ratio_long_over_wide'][n]:.2f}x" + (f" {ok(n, 'wide')}" if tgt else "")))
    return rows + busy_rows(name, r)


def parser():
    """The checkpoint_open benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench checkpoint_open", description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=10_000, help="commits of the long log (target)")
    ap.add_argument("--short", type=int, default=100, help="commits of the short log")
    ap.add_argument("--build-budget", type=float, default=900.0, help="seconds the long log's INSERT loop may take")
    ap.add_argument("--open-reps", type=int, default=7)
    return ap


def main(argv):
    """Runs the checkpoint_open benchmark; writes results/checkpoint_open.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(
        lambda spark: bench_checkpoint_open(spark, a.commits, a.short, a.build_budget, a.open_reps), SCRATCH)
