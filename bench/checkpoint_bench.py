"""Checkpoint benchmark: opening the latest snapshot of a long log, and writing a checkpoint of a
table with many files. Two parts, each in its own run (bench/run.py runs them one after the other).

(a) Open (`--part open`, bench/results/checkpoint_open.json). Two tables built by Silt itself, one
    commit per `INSERT INTO silt.`<t>` VALUES (i, 'v<i>')` after CREATE TABLE ... TBLPROPERTIES
    ('delta.checkpointInterval' = '10') (a checkpoint after every 10th commit, then log cleanup):
    a long one (target 10,000 commits; the INSERT loop stops when its time budget, default 900 s,
    is spent, and the count reached is reported, with per-INSERT latencies in the JSON) and a short
    one (100 commits). Each commit adds one file, so the long table's snapshot also holds more files. "Open" = build the latest snapshot in a JVM that has
    never seen the path (Silt caches each path's log and latest snapshot in the JVM): every timed
    open is of a fresh hard-link copy of the table's _delta_log/ (the data files are not needed to
    open it), by
      silt_read  spark.read.format("silt").load(copy).schema
      silt_log   io.silt.log.TableLog.forPath(spark, copy).latest()   (the log alone, no DataFrame: version,
                 protocol and metadata; the file list is read when first used)
      silt_files the same and its numFiles(): the snapshot's file list too (report only)
      silt_list  TableLog.forPath(spark, copy).listing()   (its first step: listing _delta_log/; report only)
      delta_rs   deltalake.DeltaTable(copy)   (delta-rs, in this Python process; report only)
    alternating long / short, OPEN_REPS (7) times each after a warm-up; ratio: median long / median
    short (target <= 1.5 for Silt). Then one more CHECKPOINT of each table, with the Spark stages it
    runs (what the checkpointing commits cost).
(b) Checkpoint write (`--part write`, bench/results/checkpoint_write.json). Tables of FILES (default
    20,000) and FILES / 4 one-row files written by Silt in one commit each
    (spark.sql.files.maxRecordsPerFile = 1, 8 write tasks: Spark writes ~200 such files a second
    here, plain Parquet as slow, so 1 M files is out of reach); `CHECKPOINT '<t>'` timed CP_REPS
    (5) times on each after a warm-up (the snapshot is already in the JVM, as after a commit; a
    repeated CHECKPOINT of the same version redoes all the work and skips only the final rename).
    Reported: seconds, add actions per second, the linear fit through the two sizes and its
    extrapolation to 1,000,000 files (an extrapolation: 1 M files was not measured), the
    checkpoint's bytes, and, report only, delta-rs' create_checkpoint() on a copy of the same log
    and the fresh open of the table before and after the checkpoint.

One JVM per part (local[2], driver memory 4g, 8 shuffle partitions). Scratch tables go to
bench/results/tmp/checkpoint/ and are removed at the end. About 7-8 minutes (open) and 3-4 minutes
(write) with the defaults on 2 cores.

    .venv/bin/python bench/checkpoint_bench.py [--part open|write] [--commits N] [--build-budget S] [--files F]
"""
import argparse
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SCRATCH_DIR, alternating, bench_session, busy_rows, busy_runs, environment, finish, folder_stats, link_copy, rm, say, timed  # noqa: E402
from machine_load import Accounting  # noqa: E402

SCRATCH = SCRATCH_DIR / "checkpoint"
TARGET_OPEN = 1.5
INTERVAL = 10
EXTRAPOLATE_TO = 1_000_000


# ------------------------------------------------------------------ (a) opening a long log

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


def openers(spark):
    jvm = spark._jvm

    def silt_read(p):
        spark.read.format("silt").load(str(p)).schema
        return None

    def silt_log(p):
        s = jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(p)).latest()
        return {"version": int(s.version()), "files_read": bool(s.isStateLoaded())}

    def silt_files(p):
        s = jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(p)).latest()
        return {"version": int(s.version()), "files": int(s.numFiles())}

    def silt_list(p):
        return {"commits": int(jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(p)).listing(0).commits().size())}

    def delta_rs(p):
        from deltalake import DeltaTable
        t = DeltaTable(str(p))
        return {"version": t.version()}

    return {"silt_read": silt_read, "silt_log": silt_log, "silt_files": silt_files, "silt_list": silt_list,
            "delta_rs": delta_rs}


def log_copy(table, dst):
    """A fresh hard-link copy of a table's _delta_log/ (all that opening the table reads)."""
    rm(dst)
    dst.mkdir(parents=True)
    link_copy(Path(table) / "_delta_log", dst / "_delta_log")
    return dst


def bench_open(spark, acct, tables, reps):
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


# ------------------------------------------------------------------ (b) writing a checkpoint of many files

def write_many_files(spark, path, files):
    spark.conf.set("spark.sql.files.maxRecordsPerFile", "1")
    try:
        secs, _ = timed(lambda: spark.range(0, files, 1, 8).selectExpr("id", "concat('f', CAST(id AS STRING)) AS s")
                        .write.format("silt").mode("error").save(str(path)))
    finally:
        spark.conf.unset("spark.sql.files.maxRecordsPerFile")
    return secs


def open_log_once(spark, acct, table, name):
    """Silt's and delta-rs' fresh open of `table`, once each (report only)."""
    ops = openers(spark)
    out = {}
    for reader in ("silt_files", "delta_rs"):
        p = log_copy(table, SCRATCH / f"open-{name}-{reader}")
        secs, seen, _ = acct.run(lambda: ops[reader](p))
        out[reader] = {"seconds": secs, "saw": seen}
        rm(p)
    return out


def bench_checkpoint(spark, acct, sizes, reps):
    import pyarrow as pa
    from deltalake import DeltaTable
    warm = SCRATCH / "warm"  # warm-up (JIT, class loading): a small table checkpointed twice, then opened
    write_many_files(spark, warm, 500)
    for _ in range(2):
        spark.sql(f"CHECKPOINT '{warm}'").collect()
    open_log_once(spark, acct, warm, "warm")
    rm(warm)
    out = {}
    for files in sizes:
        path = SCRATCH / f"files-{files}"
        wsecs = write_many_files(spark, path, files)
        n = int(spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(path)).latest().numFiles())
        commit_bytes = (path / "_delta_log" / f"{0:020d}.json").stat().st_size
        say(f"  {files:,}-file table: {n:,} files in one commit ({commit_bytes / 2**20:.1f} MiB of JSON), "
            f"written in {wsecs:.1f} s")
        before = open_log_once(spark, acct, path, f"{files}-before")
        secs_list, runs = [], []
        for i in range(reps):
            secs, _, a = acct.run(lambda: spark.sql(f"CHECKPOINT '{path}'").collect())
            secs_list.append(secs)
            runs.append(a)
            say(f"    CHECKPOINT rep {i}: {secs:6.2f} s ({n / secs:,.0f} files/s, JVM CPU {a['jvm_cpu_s']:.0f} s, "
                f"task CPU {a['task_cpu_s']} s, other load {a['other_load']:.0%})")
        cp_files = sorted((path / "_delta_log").glob("*.checkpoint*.parquet"))
        after = open_log_once(spark, acct, path, f"{files}-after")
        # delta-rs' own checkpoint of the same log, on a real copy of _delta_log (it writes into it)
        drs = SCRATCH / f"deltars-{files}"
        rm(drs)
        drs.mkdir(parents=True)
        shutil.copytree(path / "_delta_log", drs / "_delta_log",
                        ignore=shutil.ignore_patterns("*.checkpoint*", "_last_checkpoint", "*_last_checkpoint.crc"))
        dt = DeltaTable(str(drs))
        drs_secs, _ = timed(dt.create_checkpoint)
        drs_cp = [(p.name, p.stat().st_size) for p in (drs / "_delta_log").glob("*.checkpoint*.parquet")]
        drs_adds = pa.table(DeltaTable(str(drs)).get_add_actions(flatten=True)).num_rows
        rm(drs)
        med = statistics.median(secs_list)
        out[files] = {"files": n, "write_seconds": wsecs, "commit_json_bytes": commit_bytes,
                      "checkpoint_seconds": secs_list, "median_seconds": med, "files_per_second": n / med,
                      "checkpoint_bytes": sum(p.stat().st_size for p in cp_files),
                      "checkpoint_files": [p.name for p in cp_files], "runs": runs,
                      "open_before_checkpoint": before, "open_after_checkpoint": after,
                      "deltars_create_checkpoint_seconds": drs_secs, "deltars_checkpoint_files": drs_cp,
                      "deltars_adds_after_checkpoint": drs_adds}
        say(f"    delta-rs create_checkpoint: {drs_secs:.2f} s; fresh open before/after the checkpoint: "
            f"silt {before['silt_files']['seconds']:.2f}/{after['silt_files']['seconds']:.2f} s, "
            f"delta-rs {before['delta_rs']['seconds']:.2f}/{after['delta_rs']['seconds']:.2f} s")
        rm(path)
    (a, b) = sorted(out)[0], sorted(out)[-1]
    slope = (out[b]["median_seconds"] - out[a]["median_seconds"]) / (out[b]["files"] - out[a]["files"]) if b != a else None
    fit = None
    if slope is not None:
        fixed = out[a]["median_seconds"] - slope * out[a]["files"]
        fit = {"seconds_per_1000_files": slope * 1000, "fixed_seconds": fixed,
               "extrapolated_seconds_at": {str(EXTRAPOLATE_TO): fixed + slope * EXTRAPOLATE_TO}}
    return {"sizes": {str(k): v for k, v in out.items()}, "linear_fit": fit}


def profile_checkpoint(spark, acct, path):
    """One CHECKPOINT of `path` with the Spark stages it ran (the last commit's snapshot is cached)."""
    secs, _, a = acct.run(lambda: spark.sql(f"CHECKPOINT '{path}'").collect())
    names = {}
    for st in a["stages"] or []:
        key = st["name"].split(" at ")[-1].strip() if not st["name"].startswith("$") else "(unnamed)"
        names[key] = names.get(key, 0) + 1
    return {"seconds": secs, "stages": len(a["stages"] or []), "stages_by_call_site": names,
            "checkpoints_in_log": len(list((Path(path) / "_delta_log").glob("*.checkpoint.parquet"))), "run": a}


# ------------------------------------------------------------------ driver

def run_open(commits=10_000, short=100, budget=900.0, open_reps=7):
    t0 = time.perf_counter()
    with bench_session(SCRATCH) as spark:
        acct = Accounting(spark)
        env = environment()
        tables = {"long": SCRATCH / "long", "short": SCRATCH / "short"}
        say(f"  building the short log ({short} commits):")
        built_short = build_log(spark, tables["short"], short, budget)
        say(f"    {built_short['commits']} commits in {built_short['seconds']:.1f} s")
        say(f"  building the long log (target {commits:,} commits, budget {budget:.0f} s):")
        built_long = build_log(spark, tables["long"], commits, budget)
        say(f"    {built_long['commits']:,} commits in {built_long['seconds']:.0f} s "
            f"({built_long['commits_per_second']:.1f} commits/s)")
        n_log, b_log = folder_stats(tables["long"] / "_delta_log")
        long_files = int(spark._jvm.io.silt.log.TableLog.forPath(spark._jsparkSession, str(tables["long"])).latest().numFiles())
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
            "total_seconds": time.perf_counter() - t0,
        }
        return result, env


def run_write(files=20_000, cp_reps=5):
    t0 = time.perf_counter()
    with bench_session(SCRATCH) as spark:
        acct = Accounting(spark)
        env = environment()
        ckpt = bench_checkpoint(spark, acct, sorted({max(files // 4, 1), files}), cp_reps)
        result = dict(ckpt, benchmark="checkpoint_write",
                      busy_machine_runs=busy_runs([(f"checkpoint {k}", a) for k, v in ckpt["sizes"].items()
                                                   for a in v["runs"]]),
                      total_seconds=time.perf_counter() - t0)
        return result, env


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    return (open_rows(r) if r["benchmark"] == "checkpoint_open" else write_rows(r)) + busy_rows(r["benchmark"], r)


def open_rows(r):
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
    return rows


def write_rows(r):
    name = "checkpoint_write"
    rows = []
    for v in sorted(r["sizes"].values(), key=lambda v: v["files"]):
        rows.append((name, f"CHECKPOINT of {v['files']:,} files, median of {len(v['checkpoint_seconds'])}",
                     f"{v['median_seconds']:.2f} s ({v['files_per_second']:,.0f} files/s, "
                     f"{v['checkpoint_bytes'] / 2**20:.1f} MiB); delta-rs {v['deltars_create_checkpoint_seconds']:.2f} s"))
        rows.append((name, f"  fresh open of the {v['files']:,}-file table, Silt: JSON commit / checkpoint",
                     f"{v['open_before_checkpoint']['silt_files']['seconds']:.2f} / "
                     f"{v['open_after_checkpoint']['silt_files']['seconds']:.2f} s"))
    if r["linear_fit"]:
        f = r["linear_fit"]
        rows.append((name, f"CHECKPOINT, linear fit (fixed + per 1000 files) -> {EXTRAPOLATE_TO:,} files (extrapolated)",
                     f"{f['fixed_seconds']:.2f} s + {f['seconds_per_1000_files']:.3f} s -> "
                     + (f"{f['extrapolated_seconds_at'][str(EXTRAPOLATE_TO)]:.0f} s" if f["seconds_per_1000_files"] > 0
                        else "n/a (no growth measured between the two sizes)")))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=["open", "write"], help="only (a) open or only (b) write; default both, one after the other")
    ap.add_argument("--commits", type=int, default=10_000, help="commits of the long log (target)")
    ap.add_argument("--short", type=int, default=100, help="commits of the short log")
    ap.add_argument("--build-budget", type=float, default=900.0, help="seconds the long log's INSERT loop may take")
    ap.add_argument("--open-reps", type=int, default=7)
    ap.add_argument("--files", type=int, default=20_000, help="files of the larger checkpoint table")
    ap.add_argument("--cp-reps", type=int, default=5)
    args = ap.parse_args(argv)
    if args.part in (None, "open"):
        finish(*run_open(args.commits, args.short, args.build_budget, args.open_reps), summary_rows)
    if args.part in (None, "write"):
        finish(*run_write(args.files, args.cp_reps), summary_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
