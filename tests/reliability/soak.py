"""The soak test: appenders, upserters (MERGE of overlapping key windows, retried after a conflict),
a DV DELETE/UPDATE process, OPTIMIZE ZORDER, CHECKPOINT + VACUUM and readers, each a separate OS
process, on one table for a bounded time. Then: every committed append and upsert is there exactly
once and no other (no key twice, by Silt and by delta-rs), every committed DELETE/UPDATE is applied
(the workload model), no version was written twice, every failure was a typed conflict.
"""
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import workload
from conftest import python_env

WORKER = Path(__file__).resolve().parent / "worker.py"
ROLES = [("appender", 0), ("appender", 1), ("upserter", 0), ("upserter", 1), ("upserter", 2), ("upserter", 3),
         ("dml", 0), ("optimizer", 0), ("maintainer", 0), ("reader", 0)]


def _log_commits(table):
    """commitInfo of every commit file: (version, operation, readVersion, commitInfo count)."""
    out = []
    for f in sorted(Path(table, "_delta_log").glob("*.json")):
        if not f.name[:20].isdigit():
            continue
        infos = [json.loads(line)["commitInfo"] for line in f.read_text().splitlines() if line.startswith('{"commitInfo"')]
        out.append((int(f.name[:20]), infos[0].get("operation") if infos else None,
                    infos[0].get("readVersion") if infos else None, len(infos)))
    return out


def delta_rs_rows(table):
    import deltalake
    import pyarrow as pa
    dt = deltalake.DeltaTable(str(table))
    t = pa.table(deltalake.QueryBuilder().register("t", dt).execute("SELECT id, v FROM t").read_all())
    ids = t.column("id").to_pylist()
    assert len(set(ids)) == len(ids), "delta-rs reads a key twice"
    return dict(zip(ids, t.column("v").to_pylist()))


def run_soak(spark, table, seconds=60.0, roles=ROLES, startup_timeout=240.0):
    for sql in workload.create_sql(table):
        spark.sql(sql).collect()
    first_version = max(v for v, *_ in _log_commits(table))
    go, stop = Path(str(table) + ".go"), Path(str(table) + ".stop")
    procs = [subprocess.Popen([sys.executable, str(WORKER), role, str(table), str(arg), "--go", str(go), "--stop", str(stop)],
                              env=python_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for role, arg in roles]
    try:
        deadline = time.time() + startup_timeout
        for p in procs:  # every process has its session before the clock starts
            line = p.stdout.readline()
            assert line.strip() == "READY", f"a worker did not start: {line!r} {p.stderr.read()[-2000:] if p.poll() is not None else ''}"
            assert time.time() < deadline, "workers took too long to start"
        go.touch()
        t0 = time.time()
        time.sleep(seconds)
        stop.touch()
        outputs = [p.communicate(timeout=300) for p in procs]
        elapsed = time.time() - t0
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
        go.unlink(missing_ok=True)
        stop.unlink(missing_ok=True)
    for p, (role, arg), (out, err) in zip(procs, roles, outputs):
        assert p.returncode == 0, f"{role} {arg} failed: {err[-3000:]}"
    lines = [line.split(" ", 5) for out, _ in outputs for line in out.splitlines()]
    errors = [" ".join(x) for x in lines if x[0] == "ERROR"]
    assert not errors, f"failures that were not typed conflicts: {errors[:3]}"
    results = Counter((x[0], x[1]) for x in lines if x[0] in ("OK", "CONFLICT"))
    model = workload.Model()
    for x in lines:
        if x[0] == "OK" and x[1] in ("append", "delete", "update", "upsert"):
            model = model.apply((x[1], int(x[2]), int(x[3])))

    expected = model.rows()
    twice = spark.read.format("silt").load(str(table)).groupBy("id").count().where("count > 1").count()
    assert twice == 0, f"{twice} keys appear more than once"
    got = workload.read_rows(spark, table)
    missing = set(expected) - set(got)
    extra = set(got) - set(expected)
    assert not missing and not extra, f"{len(missing)} committed rows missing, {len(extra)} rows never committed present"
    assert got == expected, "a committed DELETE or UPDATE is not applied exactly once"
    assert delta_rs_rows(table) == got, "delta-rs reads other rows"
    commits = [c for c in _log_commits(table) if c[0] > first_version]
    versions = [c[0] for c in commits]
    assert versions == list(range(first_version + 1, first_version + 1 + len(versions))), "versions are not contiguous"
    assert all(c[3] == 1 for c in commits), "a commit file holds more than one commit"
    ops = Counter(c[1] for c in commits)
    assert ops["WRITE"] == results[("OK", "append")], "appends committed != appends that reported success"
    rebased = sum(1 for v, _, read, _ in commits if read is not None and v - read > 1)
    reads = sum(1 for x in lines if x[0] == "READ")
    return {
        "seconds": round(elapsed, 1), "processes": len(roles), "roles": [f"{r} {a}" for r, a in roles],
        "commits": len(commits), "commits_per_second": round(len(commits) / elapsed, 2),
        "commits_by_operation": dict(ops), "operations_ok": {k[1]: v for k, v in results.items() if k[0] == "OK"},
        "typed_conflicts": {k[1]: v for k, v in results.items() if k[0] == "CONFLICT"},
        "conflict_rate": {k: round(results[("CONFLICT", k)] / (results[("CONFLICT", k)] + results[("OK", k)]), 3)
                          for k in {k for _, k in results} if results[("CONFLICT", k)] + results[("OK", k)]},
        "conflicts_by_exception": dict(Counter(x[4].strip() for x in lines if x[0] == "CONFLICT" and len(x) > 4)),
        "keys_twice": twice,
        "commits_rebased_over_concurrent_commits": rebased, "reads": reads,
        "final_rows": len(got), "delta_rs_agrees": True,
    }
