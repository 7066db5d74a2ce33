"""One process of the crash or soak test: `python worker.py ROLE TABLE [ARG] [--go F --stop F]`.

Roles: crash-writer START (runs the crash test's operation cycle from step START until killed),
stream-writer PAUSE (a stream from TABLE's source table into its target, see stream_crash.py; PAUSE
0: runs to the end, 1: stops before its first commit to the target, 2: just after it),
and the soak roles appender W, upserter W, dml, optimizer, maintainer, reader. Every outcome is one flushed
stdout line, so that a parent that kills this process knows what was in flight:
  READY | BEGIN step | END step | OK kind a b | CONFLICT kind a b | ERROR kind a b message | READ rows |
  PAUSED (a stream-writer stopped at its kill point) | DONE
"""
import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import workload  # noqa: E402
from conftest import build_silt_session  # noqa: E402


UPSERT_ATTEMPTS = 50


def say(*parts):
    print(*parts, flush=True)


def session():
    return build_silt_session(master="local[1]", extra_conf={
        "spark.driver.memory": "768m",
        "spark.sql.shuffle.partitions": "2",
        "spark.silt.vacuum.retentionDurationCheck.enabled": "false",
    })


def crash_writer(spark, table, start):
    step = start
    while True:
        say("BEGIN", step)
        for sql in workload.sql_of(table, workload.crash_op(step)):
            spark.sql(sql).collect()
        say("END", step)
        step += 1


def stream_writer(spark, folder, pause):
    """Streams FOLDER/source into FOLDER/target (checkpoint FOLDER/checkpoint), a few files a batch."""
    import stream_crash
    target = os.path.join(folder, "target")
    hook = spark._jvm.io.silt.txn.CommitPause
    if pause == 1:
        hook.arm(target)
    elif pause == 2:
        hook.armAfterCommit(target)
    query = stream_crash.start_query(spark, folder)
    while pause and not hook.awaitPaused(target, 1):
        if not query.isActive:
            break
    if pause and query.isActive:
        say("PAUSED")
        time.sleep(600)  # until killed
    query.awaitTermination()
    say("DONE")


def run_op(spark, kind, a, b, statements):
    """Runs one soak operation and reports it; a typed conflict is expected, anything else is not. True if it committed."""
    from silt.errors import ConcurrentModificationException, translate
    try:
        for sql in statements:
            spark.sql(sql).collect()
        say("OK", kind, a, b)
        return True
    except Exception as e:  # noqa: BLE001 - classified and reported
        typed = translate(e)
        if isinstance(typed, ConcurrentModificationException):
            say("CONFLICT", kind, a, b, type(typed).__name__)
        else:
            say("ERROR", kind, a, b, type(typed or e).__name__, str(typed or e).replace("\n", " ")[:500])
        return False


def soak(spark, role, table, arg, stop):
    step = 0
    while not stop.exists():
        if role == "appender":
            run_op(spark, "append", arg, step, [workload.append_sql(table, arg, step)])
        elif role == "upserter":
            # Retried until it commits: a conflicting upsert must eventually get through.
            for _ in range(UPSERT_ATTEMPTS):
                if run_op(spark, "upsert", arg, step, [workload.upsert_sql(table, arg, step)]):
                    break
        elif role == "dml":
            if step % 2 == 0:
                r = step // 2 % workload.DELETE_MOD
                run_op(spark, "delete", r, 0, [workload.delete_sql(table, r)])
            else:
                r = step // 2 % workload.UPDATE_MOD
                run_op(spark, "update", r, 0, [workload.update_sql(table, r)])
        elif role == "optimizer":
            run_op(spark, "optimize", 0, 0, [f"OPTIMIZE silt.`{table}` ZORDER BY (id, v)"])
            time.sleep(1.0)
        elif role == "maintainer":
            run_op(spark, "checkpoint", 0, 0, [f"CHECKPOINT silt.`{table}`"])
            run_op(spark, "vacuum", 0, 0, [f"VACUUM silt.`{table}`"])
            time.sleep(1.0)
        elif role == "reader":
            try:
                say("READ", spark.read.format("silt").load(table).count())
            except Exception as e:  # noqa: BLE001 - reported
                say("ERROR", "read", 0, 0, type(e).__name__, str(e).replace("\n", " ")[:500])
        step += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("role")
    ap.add_argument("table")
    ap.add_argument("arg", nargs="?", type=int, default=0)
    ap.add_argument("--go")
    ap.add_argument("--stop")
    args = ap.parse_args()
    spark = session()
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql("SELECT 1").collect()  # warm before saying READY
    say("READY")
    if args.role == "crash-writer":
        crash_writer(spark, args.table, args.arg)
        return
    if args.role == "stream-writer":
        stream_writer(spark, args.table, args.arg)
        return
    while args.go and not os.path.exists(args.go):
        time.sleep(0.05)
    soak(spark, args.role, args.table, args.arg, Path(args.stop))
    spark.stop()


if __name__ == "__main__":
    main()
