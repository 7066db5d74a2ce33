"""checkpoint_write: CHECKPOINT of tables of many files, and a linear extrapolation to 1 M files.

Tables of FILES (default 20,000) and FILES / 4 one-row files written by Silt in one commit each
(spark.sql.files.maxRecordsPerFile = 1, 8 write tasks: Spark writes ~200 such files a second
here, plain Parquet as slow, so 1 M files is out of reach); `CHECKPOINT '<t>'` timed CP_REPS
(5) times on each after a warm-up (the snapshot is already in the JVM, as after a commit; a
repeated CHECKPOINT of the same version redoes all the work and skips only the final rename).
Reported: seconds, add actions per second, the linear fit through the two sizes and its
extrapolation to 1,000,000 files (an extrapolation: 1 M files was not measured), the
checkpoint's bytes, and, report only, delta-rs' create_checkpoint() on a copy of the same log
and the fresh open of the table before and after the checkpoint.

One JVM (local[2], driver memory 4g, 8 shuffle partitions). Scratch tables go to
bench/results/tmp/checkpoint_write/ and are removed at the end. About 3-4 minutes with the
defaults on 2 cores.

    python -m bench checkpoint_write [--files F] [--cp-reps R]
"""
import argparse
import shutil
import statistics

from bench.common import SCRATCH_DIR, measure_and_save, rm, say, timed
from bench.log_open import log_copy, openers, snapshot_file_count
from bench.machine_load import Accounting, busy_rows, busy_runs

SCRATCH = SCRATCH_DIR / "checkpoint_write"
EXTRAPOLATE_TO = 1_000_000


def write_many_files(spark, path, files):
    """A Silt table of `files` one-row files in one commit; returns the seconds it took."""
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
    """Times CHECKPOINT of a table of each size (and delta-rs' checkpoint of the same log)."""
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
        n = snapshot_file_count(spark, path)
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


def bench_checkpoint_write(spark, files=20_000, cp_reps=5):
    """CHECKPOINT of a table of `files` files and of one of files / 4; returns the result."""
    acct = Accounting(spark)
    ckpt = bench_checkpoint(spark, acct, sorted({max(files // 4, 1), files}), cp_reps)
    return dict(ckpt, benchmark="checkpoint_write",
                busy_machine_runs=busy_runs([(f"checkpoint {k}", a) for k, v in ckpt["sizes"].items()
                                             for a in v["runs"]]))


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
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
    return rows + busy_rows(name, r)


def parser():
    """The checkpoint_write benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench checkpoint_write", description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=20_000, help="files of the larger checkpoint table")
    ap.add_argument("--cp-reps", type=int, default=5)
    return ap


def main(argv):
    """Runs the checkpoint_write benchmark; writes results/checkpoint_write.json and returns the result."""
    a = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_checkpoint_write(spark, a.files, a.cp_reps), SCRATCH)
