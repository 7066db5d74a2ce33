"""Writers on a misbehaving S3: each fault of tests/faulty_s3.py alone, and a seeded random mix of all,
while writers append, MERGE and OPTIMIZE one table and a stream copies its appends to another.

A trial checks what must hold whatever the store does:
  - every statement that returned (acknowledged) is in the log exactly once, by the userMetadata tag
    each statement commits with; none reported failed is; one whose outcome Silt said it cannot know
    (CommitOutcomeUnknownException) is at most once;
  - the table's rows are what a model of the statements in the log says, and the stream's sink holds
    every appended row exactly once;
  and reports how often a request a fault hit was sent and how long S3A waited after a throttle
  (tests/test_s3_faults.py checks on one request that the retries are bounded and back off).

    server, proxy, conf = start_store(folder, seed=1)         # conf: the session's S3A settings
    result = run_trial(spark, proxy, conf, "mix", seed=7, scratch=folder)   # a dict of figures; result["ok"]
    python tests/reliability/s3_faults.py                     # every scenario: bench/results/s3_faults.json
"""
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Dict, List

sys.path[:0] = [str(Path(__file__).resolve().parent.parent)]  # tests/: the proxy, the S3 server, conftest
from faulty_s3 import FaultyS3, Rule  # noqa: E402
from s3server import S3Server  # noqa: E402

BUCKET = "silt-faults"
THROTTLE_INTERVAL_MS = 100
# S3A tuned so that a trial takes seconds, not minutes: short back-offs and timeouts.
S3A_SETTINGS = {
    "fs.s3a.retry.interval": "100ms",
    "fs.s3a.retry.throttle.interval": f"{THROTTLE_INTERVAL_MS}ms",
    "fs.s3a.retry.throttle.limit": "4",
    "fs.s3a.attempts.maximum": "0",  # no retries by the AWS SDK under S3A's: S3A's back-off alone, whose least wait is its interval
    "fs.s3a.connection.timeout": "10s",
    "fs.s3a.connection.request.timeout": "5s",
}
COMMIT = r".*/_delta_log/\d{20}\.json"
DELAY_SECONDS = 7.0  # past the request timeout above


def start_store(root, seed: int):
    """(server, proxy, settings): the local S3 server, the proxy before it, and the session settings
    that send the bucket's requests through the proxy with short back-offs. The bucket gets its own
    endpoint: S3A caches a file system per bucket, so other buckets keep talking to the server."""
    server = S3Server.start(root)
    (server.root / "data" / BUCKET).mkdir()
    proxy = FaultyS3.start(server.endpoint, seed=seed)
    conf = dict(server.hadoop_conf())
    conf[f"fs.s3a.bucket.{BUCKET}.endpoint"] = proxy.endpoint
    conf.update({k.replace("fs.s3a.", f"fs.s3a.bucket.{BUCKET}.", 1): v for k, v in S3A_SETTINGS.items()})
    return server, proxy, conf


def rules_for(fault: str) -> List[Rule]:
    """The rules of one scenario: a fault alone, aimed where it hurts, or the mix of all."""
    single = {
        "throttle": [Rule("throttle", probability=0.25, times=40)],
        "server_error": [Rule("server_error", probability=0.15, times=25)],
        "delay": [Rule("delay", method="PUT", path=COMMIT, times=2, seconds=DELAY_SECONDS)],
        "reset": [Rule("reset", method="GET", probability=0.2, times=12)],
        "lose_response": [Rule("lose_response", method="PUT", path=COMMIT, probability=0.5, times=6)],
        "refuse": [Rule("refuse", probability=0.1, times=15)],
        "list_failure": [Rule("server_error", method="GET", query=r"list-type=2", probability=0.4, times=12)],
    }
    if fault != "mix":
        return single[fault]
    return [Rule("lose_response", method="PUT", path=COMMIT, probability=0.3, times=6),
            Rule("delay", method="PUT", path=COMMIT, probability=0.05, times=1, seconds=DELAY_SECONDS),
            Rule("server_error", method="GET", query=r"list-type=2", probability=0.1, times=8),
            Rule("reset", method="GET", probability=0.03, times=8),
            Rule("throttle", probability=0.06, times=40),
            Rule("server_error", probability=0.02, times=10),
            Rule("refuse", probability=0.02, times=8)]


def _writer_ids(writer: int, i: int) -> int:
    return writer * 1_000_000 + i


def _failure_name(e: BaseException) -> str:
    """A failure's class: Silt's (Python) exception, else the JVM's root cause (a store's error under Spark's wrappers)."""
    java = getattr(e, "java_exception", None)
    if java is None:
        return type(e).__name__
    while java.getCause() is not None:
        java = java.getCause()
    return java.getClass().getSimpleName()


class _Writer:
    """One writer: its own session (its own userMetadata tag per statement) and its statements' outcomes."""

    def __init__(self, spark, conf: Dict[str, str], table: str, writer: int, statements: int):
        self.session, self.table, self.writer, self.statements = spark.newSession(), table, writer, statements
        for k, v in conf.items():  # a new session starts from the defaults, not from its parent's settings
            self.session.conf.set(k, v)
        self.outcomes: Dict[str, str] = {}    # tag -> acked | failed:<Type> | unknown
        self.effects: Dict[str, tuple] = {}   # tag -> (kind, {id: v} it writes, whether it only appends)
        self.appended: List[int] = []         # ids this writer's acknowledged appends wrote

    def statement(self, i: int):
        """(tag, kind, sql, effect, append-only) of statement i: appends, a MERGE of the writer's own rows, OPTIMIZE."""
        tag, t = f"w{self.writer}-s{i}", self.table
        kind = ("append", "merge", "append", "optimize")[(i + self.writer) % 4]
        if kind == "append":
            new = _writer_ids(self.writer, i)
            return tag, kind, f"INSERT INTO silt.`{t}` VALUES ({new}, 0)", {new: 0}, True
        if kind == "merge":
            new = _writer_ids(self.writer, i)
            old = self.appended[-1:] if self.appended else []
            values = ", ".join(f"({k}, {i})" for k in old + [new])
            return (tag, kind, f"MERGE INTO silt.`{t}` t USING (SELECT * FROM VALUES {values} AS s(id, v)) s "
                    "ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *",
                    {k: i for k in old + [new]}, not old)
        return tag, kind, f"OPTIMIZE silt.`{t}`", {}, False

    def run(self):
        import silt
        for i in range(self.statements):
            tag, kind, sql, effect, append_only = self.statement(i)
            self.session.conf.set("spark.databricks.delta.commitInfo.userMetadata", tag)
            self.effects[tag] = (kind, effect, append_only)
            try:
                self.session.sql(sql).collect()
                self.outcomes[tag] = "acked"
            except silt.CommitOutcomeUnknownException:
                self.outcomes[tag] = "unknown"
            except silt.PostCommitHookFailedException:
                self.outcomes[tag] = "acked"  # committed; a step after the commit failed
            except Exception as e:  # noqa: BLE001 - any other failure: the statement reported it failed
                self.outcomes[tag] = "failed:" + _failure_name(e)
            if self.outcomes[tag] == "acked" and kind == "append":
                self.appended.extend(effect)


def _tags_in_log(spark, table: str) -> Counter:
    history = spark.sql(f"DESCRIBE HISTORY silt.`{table}`").select("userMetadata").collect()
    return Counter(r.userMetadata for r in history if r.userMetadata)


def _stream(spark, source: str, sink: str, checkpoint: str):
    return (spark.readStream.format("silt").option("skipChangeCommits", "true").load(source)
            .writeStream.format("silt").option("checkpointLocation", checkpoint)
            .trigger(processingTime="1 second").start(sink))


def _retries(events) -> Dict[str, float]:
    """Of the requests a fault hit (by method, path and query, in arrival order): the most times one
    was sent, and the median wait before a throttled one was sent again (concurrent readers of one
    file make both upper bounds of S3A's own)."""
    by_key: Dict[tuple, list] = {}
    for e in sorted(events, key=lambda e: e.at):
        by_key.setdefault((e.method, e.path, e.query), []).append(e)
    hit = [v for v in by_key.values() if any(x.fault for x in v)]
    waits = sorted(b.at - a.at for v in hit for a, b in zip(v, v[1:]) if a.fault == "throttle")
    return {"most_sends_of_a_faulted_request": max((len(v) for v in hit), default=0),
            "median_wait_after_throttle_ms": round(waits[len(waits) // 2] * 1000, 1) if waits else None}


def run_trial(spark, proxy, conf: Dict[str, str], scenario: str, seed: int, scratch: str, writers: int = 4,
              statements: int = 6) -> dict:
    """One trial on fresh tables: the scenario's faults while `writers` run `statements` each and a stream
    copies appends; `conf`: the session's S3A settings (each writer's session gets them)."""
    table, sink = f"s3a://{BUCKET}/{scenario}-{seed}/t", f"s3a://{BUCKET}/{scenario}-{seed}/sink"
    spark.sql(f"CREATE TABLE silt.`{table}` (id BIGINT, v BIGINT) USING silt "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')").collect()
    proxy.clear()
    proxy.random.seed(seed)
    stream = _stream(spark, table, sink, f"{scratch}/{scenario}-{seed}-checkpoint")
    proxy.add(*rules_for(scenario))
    team = [_Writer(spark, conf, table, w, statements) for w in range(writers)]
    t0 = time.monotonic()
    threads = [threading.Thread(target=w.run) for w in team]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - t0
    faults, events = proxy.faults(), list(proxy.events)
    proxy.clear()  # the checks read a well-behaved store
    stream_error = None
    try:
        stream.processAllAvailable()
    except Exception as e:  # noqa: BLE001 - a stream that failed under a fault is restarted once, as a user would
        stream_error = type(e).__name__
        stream = _stream(spark, table, sink, f"{scratch}/{scenario}-{seed}-checkpoint")
        stream.processAllAvailable()
    stream.stop()

    outcomes = {tag: o for w in team for tag, o in w.outcomes.items()}
    effects = {tag: e for w in team for tag, e in w.effects.items()}
    in_log = _tags_in_log(spark, table)
    # an OPTIMIZE with nothing to compact commits nothing
    wrong = [tag for tag, o in outcomes.items()
             if (o == "acked" and in_log[tag] != 1 and not (effects[tag][0] == "optimize" and in_log[tag] == 0))
             or (o.startswith("failed") and in_log[tag] != 0) or (o == "unknown" and in_log[tag] > 1)]
    landed = [tag for tag in outcomes if in_log[tag] == 1]
    model: Dict[int, int] = {}
    appended: Counter = Counter()
    for tag in sorted(landed, key=lambda t: (int(t.split("-")[0][1:]), int(t.split("-s")[1]))):
        kind, effect, append_only = effects[tag]
        model.update(effect)
        if append_only:
            appended.update(effect.keys())
    rows = {r.id: r.v for r in spark.read.format("silt").load(table).collect()}
    sink_ids = Counter(r.id for r in spark.read.format("silt").load(sink).select("id").collect())
    retries = _retries(events)
    result = {
        "scenario": scenario, "seed": seed, "writers": writers, "statements": len(outcomes), "seconds": round(seconds, 1),
        "requests": len(events), "faults_injected": faults,
        "outcomes": dict(Counter(o.split(":")[0] for o in outcomes.values())),
        "failures": dict(Counter(o.split(":")[1] for o in outcomes.values() if o.startswith("failed"))),
        "unknown_landed": sum(1 for t, o in outcomes.items() if o == "unknown" and in_log[t] == 1),
        "log_mismatches": wrong, "duplicated_tags": [t for t, n in in_log.items() if n > 1],
        "rows_match_model": rows == model, "stream_restarted_after": stream_error,
        "sink_matches_appends": sink_ids == appended, **retries,
    }
    result["ok"] = (not wrong and not result["duplicated_tags"] and result["rows_match_model"]
                    and result["sink_matches_appends"])
    return result


SCENARIOS = ("throttle", "server_error", "delay", "reset", "lose_response", "refuse", "list_failure", "mix")


def main(argv=None):
    """Runs every scenario (the mix with several seeds) and writes bench/results/s3_faults.json."""
    import argparse
    import json
    import shutil
    import tempfile
    here = Path(__file__).resolve().parent
    sys.path[:0] = [str(here.parent.parent), str(here.parent.parent / "python")]
    from bench.common import environment
    from conftest import build_silt_session
    ap = argparse.ArgumentParser(description="Writers on a misbehaving S3: each fault, and mixes of all")
    ap.add_argument("--seeds", type=int, default=3, help="trials of the mix, each with its own seed")
    ap.add_argument("--statements", type=int, default=4, help="statements of each of the 4 writers")
    args = ap.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="silt-s3-faults-"))
    env = environment()
    server, proxy, conf = start_store(scratch / "s3", seed=1)
    spark = build_silt_session(master="local[2]", storage="s3", extra_conf={"spark.hadoop." + k: v for k, v in conf.items()})
    spark.sparkContext.setLogLevel("OFF")
    trials = []
    try:
        plan = [(s, 1) for s in SCENARIOS if s != "mix"] + [("mix", seed) for seed in range(1, args.seeds + 1)]
        for scenario, seed in plan:
            result = run_trial(spark, proxy, conf, scenario, seed, str(scratch), statements=args.statements)
            trials.append(result)
            print(f"{scenario:14s} seed {seed}: {'ok' if result['ok'] else 'FAILED'}  faults {result['faults_injected']}  "
                  f"outcomes {result['outcomes']}  {result['seconds']} s", flush=True)
    finally:
        spark.stop()
        proxy.stop()
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    report = {"benchmark": "s3_faults", "environment": env, "settings": S3A_SETTINGS, "trials": trials,
              "all_ok": all(t["ok"] for t in trials)}
    out = here.parent.parent / "bench" / "results" / "s3_faults.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written to {out}")
    return 0 if report["all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
