"""Writers on a misbehaving S3: each fault of tests/faulty_s3.py alone, and a seeded random mix of all,
while writers append, MERGE and OPTIMIZE one table and a stream copies its appends to another.

A trial checks what must hold whatever the store does:
  - every statement that returned (acknowledged) is in the log exactly once, by the userMetadata tag
    each statement commits with; none reported failed is; one whose outcome Silt said it cannot know
    (CommitOutcomeUnknownException) is at most once;
  - the table's rows are what a model of the statements in the log says, and the stream's sink holds
    every appended row exactly once;
  - S3A's retries are bounded (attempts of one request) and back off (a throttled request is not
    tried again before the throttle interval).

    result = run_trial(spark, server, proxy, "mix", seed=7)   # a dict of figures; result["ok"]
"""
import threading
import time
from collections import Counter
from typing import Dict, List

from faulty_s3 import Rule

BUCKET = "silt-faults"
THROTTLE_INTERVAL_MS = 100
# S3A tuned so that a trial takes seconds, not minutes: short back-offs and timeouts.
S3A_SETTINGS = {
    "fs.s3a.retry.interval": "100ms",
    "fs.s3a.retry.throttle.interval": f"{THROTTLE_INTERVAL_MS}ms",
    "fs.s3a.connection.timeout": "10s",
    "fs.s3a.connection.request.timeout": "5s",
}
COMMIT = r".*/_delta_log/\d{20}\.json"
DELAY_SECONDS = 7.0  # past the request timeout above


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
                self.outcomes[tag] = "failed:" + type(e).__name__
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
    """Of requests a fault hit: the most attempts of one request, and the shortest wait before a throttled one was tried again."""
    by_key: Dict[tuple, list] = {}
    for e in events:
        by_key.setdefault((e.method, e.path, e.query), []).append(e)
    hit = [v for v in by_key.values() if any(x.fault for x in v)]
    waits = [b.at - a.at for v in hit for a, b in zip(v, v[1:]) if a.fault == "throttle"]
    return {"max_attempts_of_a_faulted_request": max((len(v) for v in hit), default=0),
            "min_wait_after_throttle_ms": round(min(waits) * 1000, 1) if waits else None}


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
    backoff_ok = retries["min_wait_after_throttle_ms"] is None or \
        retries["min_wait_after_throttle_ms"] >= 0.9 * THROTTLE_INTERVAL_MS
    result = {
        "scenario": scenario, "seed": seed, "writers": writers, "statements": len(outcomes), "seconds": round(seconds, 1),
        "requests": len(events), "faults_injected": faults,
        "outcomes": dict(Counter(o.split(":")[0] for o in outcomes.values())),
        "failures": dict(Counter(o.split(":")[1] for o in outcomes.values() if o.startswith("failed"))),
        "unknown_landed": sum(1 for t, o in outcomes.items() if o == "unknown" and in_log[t] == 1),
        "log_mismatches": wrong, "duplicated_tags": [t for t, n in in_log.items() if n > 1],
        "rows_match_model": rows == model, "stream_restarted_after": stream_error,
        "sink_matches_appends": sink_ids == appended, **retries, "backoff_ok": backoff_ok,
    }
    result["ok"] = (not wrong and not result["duplicated_tags"] and result["rows_match_model"]
                    and result["sink_matches_appends"] and backoff_ok)
    return result
