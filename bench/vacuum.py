"""vacuum: VACUUM LITE against VACUUM FULL on tables of many files of which a few were removed, on
the local disk: FULL lists every folder of the table, LITE reads the removals from the log. The
tables' logs are written directly (one commit adding every file, one removing some), with tiny
data files, so that what is measured is finding the files, not writing them.
"""
import argparse
import json
import os
import statistics

from bench.common import SCRATCH_DIR, alternating, link_copy, measure_and_save, say, timed

SCRATCH = SCRATCH_DIR / "vacuum"
MODES = ("LITE", "FULL")


def make_table(root, files, removed, folders):
    """A partitioned table of `files` one-byte files in `folders` partition folders; commit 1 removes `removed`."""
    log = root / "_delta_log"
    log.mkdir(parents=True)
    old = 1_000_000_000  # seconds: files and removals long past any retention
    adds = []
    for i in range(files):
        part = f"p={i % folders}"
        (root / part).mkdir(exist_ok=True)
        f = root / part / f"part-{i:07d}.parquet"
        f.write_bytes(b"x")
        os.utime(f, (old, old))
        adds.append({"add": {"path": f"{part}/{f.name}", "partitionValues": {"p": str(i % folders)}, "size": 1,
                             "modificationTime": old * 1000, "dataChange": True}})
    schema = {"type": "struct", "fields": [{"name": "id", "type": "long", "nullable": True, "metadata": {}},
                                           {"name": "p", "type": "integer", "nullable": True, "metadata": {}}]}
    head = [{"commitInfo": {"operation": "WRITE"}}, {"protocol": {"minReaderVersion": 1, "minWriterVersion": 2}},
            {"metaData": {"id": "bench-vacuum", "format": {"provider": "parquet", "options": {}},
                          "schemaString": json.dumps(schema), "partitionColumns": ["p"], "configuration": {},
                          "createdTime": old * 1000}}]
    (log / f"{0:020d}.json").write_text("\n".join(json.dumps(a) for a in head + adds) + "\n")
    step = files // removed
    removes = [{"remove": {"path": a["add"]["path"], "deletionTimestamp": old * 1000, "dataChange": True,
                           "partitionValues": a["add"]["partitionValues"], "size": 1}} for a in adds[::step][:removed]]
    (log / f"{1:020d}.json").write_text("\n".join(json.dumps(a) for a in [{"commitInfo": {"operation": "DELETE"}}] + removes) + "\n")
    for c in log.iterdir():
        os.utime(c, (old, old))
    return root


def vacuum(spark, path, mode):
    """Seconds of one VACUUM of `mode` with retention 0, and the files it deleted."""
    seconds, _ = timed(lambda: spark.sql(f"VACUUM silt.`{path}` {mode} RETAIN 0 HOURS").collect())
    h = spark.sql(f"DESCRIBE HISTORY silt.`{path}` LIMIT 1").collect()[0]
    return seconds, int(h["operationMetrics"]["numDeletedFiles"])


def bench_vacuum(spark, sizes, removed, folders, rounds):
    spark.conf.set("spark.silt.vacuum.retentionDurationCheck.enabled", "false")
    out = []
    for files in sizes:
        say(f"  building a table of {files} files ({removed} removed) in {folders} folders")
        src = make_table(SCRATCH / f"src-{files}", files, removed, folders)
        times = {m: [] for m in MODES}
        for r in range(rounds):
            for mode in alternating(MODES, r):
                copy = link_copy(src, SCRATCH / f"t-{files}-{mode}-{r}")
                seconds, deleted = vacuum(spark, copy, mode)
                assert deleted == removed, f"VACUUM {mode} deleted {deleted} files, not {removed}"
                times[mode].append(seconds)
        row = {"files": files, "removed": removed, "folders": folders,
               **{f"{m.lower()}_seconds": statistics.median(times[m]) for m in MODES}}
        row["full_over_lite"] = row["full_seconds"] / row["lite_seconds"]
        say(f"  {files} files: LITE {row['lite_seconds']:.2f} s, FULL {row['full_seconds']:.2f} s "
            f"({row['full_over_lite']:.1f}x)")
        out.append(row)
    return {"benchmark": "vacuum", "rounds": rounds, "tables": out}


def parser():
    """The vacuum benchmark's flags."""
    ap = argparse.ArgumentParser(prog="python -m bench vacuum", description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20000, 100000], help="files per table")
    ap.add_argument("--removed", type=int, default=1000, help="files the second commit removes")
    ap.add_argument("--folders", type=int, default=100, help="partition folders the files are spread over")
    ap.add_argument("--rounds", type=int, default=3, help="VACUUMs of each mode per table (median)")
    return ap


def main(argv):
    """Runs the vacuum benchmark; writes results/vacuum.json and returns the result."""
    args = parser().parse_args(argv)
    return measure_and_save(lambda spark: bench_vacuum(spark, args.sizes, args.removed, args.folders, args.rounds),
                            SCRATCH)


def summary_rows(r):
    """Rows (benchmark, measure, value) for the closing table."""
    return [("vacuum", f"{t['files']} files, {t['removed']} removed: LITE / FULL",
             f"{t['lite_seconds']:.2f} s / {t['full_seconds']:.2f} s ({t['full_over_lite']:.1f}x)") for t in r["tables"]]
