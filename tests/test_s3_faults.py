"""Tables on a misbehaving S3: a proxy between S3A and the local S3 server (tests/faulty_s3.py)
throttles, delays, resets, fails listings and loses the responses of completed commits; the trials
of tests/reliability/s3_faults.py check that nothing acknowledged is lost or doubled and nothing
reported failed is in the log. A lost commit response, a reset log read and a throttled commit run
in `make test`; a trial of lost responses with four writers and a stream, and a commit throttled for
good, in the second tier; every fault and mixes of all in `make reliability` (s3_faults.py's report)."""
import json
import sys
from pathlib import Path

import pytest

import silt
from conftest import s3_supported
from faulty_s3 import Rule

sys.path.insert(0, str(Path(__file__).resolve().parent / "reliability"))
import s3_faults  # noqa: E402
from s3_faults import BUCKET, COMMIT, S3A_SETTINGS, THROTTLE_INTERVAL_MS  # noqa: E402

SEED = 20261129


@pytest.fixture(scope="module")
def store(spark, tmp_path_factory):
    """(proxy, the session's settings for the bucket behind it)."""
    if not s3_supported():
        pytest.skip(f"this pyspark's Hadoop ({silt.session.hadoop_version()}) cannot create S3 objects "
                    "conditionally, so Silt does not commit to S3 with it (Spark 4.1 and later can)")
    server, proxy, conf = s3_faults.start_store(tmp_path_factory.mktemp("s3-faults"), SEED)
    for k, v in conf.items():
        spark.conf.set(k, v)
    yield proxy, conf
    for k in conf:
        spark.conf.unset(k)
    proxy.stop()
    server.stop()


def tags(spark, table):
    return [r.userMetadata for r in spark.sql(f"DESCRIBE HISTORY silt.`{table}`").collect()]


def test_a_commit_whose_response_is_lost_is_committed_once_and_acknowledged(spark, store):
    """The hard case: the store completes the conditional PUT of a commit, and the response never
    arrives. S3A tries again and gets 412; Silt reads the commit back, finds its own bytes (its txnId),
    and reports the write committed: in the log once, at the version it took, nothing doubled."""
    proxy, _ = store
    t = f"s3a://{BUCKET}/lost-response"
    spark.range(5).write.format("silt").save(t)
    proxy.clear()
    proxy.add(Rule("lose_response", method="PUT", path=COMMIT, times=1))
    spark.conf.set("spark.databricks.delta.commitInfo.userMetadata", "lost-response")
    try:
        spark.range(5, 10).write.format("silt").mode("append").save(t)
    finally:
        spark.conf.unset("spark.databricks.delta.commitInfo.userMetadata")
    assert proxy.faults() == {"lose_response": 1}
    assert sorted(r.id for r in spark.read.format("silt").load(t).collect()) == list(range(10))
    assert tags(spark, t) == ["lost-response", None]


def test_a_log_read_reset_in_the_middle_is_read_again(spark, store):
    """S3A's stream gives up on a reset connection; Silt reads a log file again, with a back-off."""
    proxy, _ = store
    t = f"s3a://{BUCKET}/reset-read"
    spark.range(5).write.format("silt").save(t)
    spark.range(5, 10).write.format("silt").mode("append").save(t)
    spark._jvm.io.silt.log.TableLog.forget(spark._jsparkSession, t)
    proxy.clear()
    proxy.add(Rule("reset", method="GET", path=COMMIT, times=2))
    assert spark.read.format("silt").load(t).count() == 10
    assert proxy.faults() == {"reset": 2}
    first = next(e for e in proxy.events if e.fault == "reset")
    reads = [e for e in proxy.events if e.method == "GET" and e.path == first.path]
    assert len(reads) >= 3 and reads[1].at - reads[0].at >= 0.09  # waited before reading it again


def test_a_throttled_commit_is_retried_with_back_off_and_not_forever(spark, store):
    proxy, _ = store
    t = f"s3a://{BUCKET}/throttled"
    spark.range(5).write.format("silt").save(t)
    proxy.clear()
    proxy.add(Rule("throttle", method="PUT", path=COMMIT, times=3))
    spark.range(5, 10).write.format("silt").mode("append").save(t)
    puts = sorted((e for e in proxy.events if e.method == "PUT" and e.path.endswith(f"{1:020d}.json")), key=lambda e: e.at)
    assert [e.fault for e in puts] == ["throttle"] * 3 + [None]
    # S3A's exponential back-off waits a random multiple (1 or more) of its interval: never less
    gaps = [b.at - a.at for a, b in zip(puts, puts[1:])]
    assert min(gaps) >= 0.9 * THROTTLE_INTERVAL_MS / 1000, [round(g, 3) for g in gaps]


@pytest.mark.full  # second tier: ~30 s of back-off
def test_a_commit_throttled_for_good_fails_after_bounded_tries_and_commits_nothing(spark, store):
    """S3A's tries (`fs.s3a.retry.throttle.limit`, each the SDK's `fs.s3a.attempts.maximum`), then
    Silt's own of a create that left no file (3): bounded, and the statement fails with nothing committed."""
    proxy, _ = store
    t = f"s3a://{BUCKET}/throttled-for-good"
    spark.range(10).write.format("silt").save(t)
    proxy.clear()
    proxy.add(Rule("throttle", method="PUT", path=COMMIT))  # throttled for good
    with pytest.raises(Exception) as failure:
        spark.range(10, 15).write.format("silt").mode("append").save(t)
    sends = sum(1 for e in proxy.events if e.method == "PUT" and e.path.endswith(f"{1:020d}.json"))
    proxy.clear()
    assert "503" in str(failure.value) or "throttl" in str(failure.value).lower(), str(failure.value)[:500]
    # each of Silt's 3 creates: S3A's first try and its retries, each the SDK's first try and its retries
    bound = 3 * (int(S3A_SETTINGS["fs.s3a.retry.throttle.limit"]) + 1) * (int(S3A_SETTINGS["fs.s3a.attempts.maximum"]) + 1)
    assert 3 < sends <= bound, (sends, bound)
    assert spark.read.format("silt").load(t).count() == 10 and len(tags(spark, t)) == 1


@pytest.mark.full  # second tier: the hard fault; `make reliability` runs each fault and mixes of all (s3_faults.py)
def test_writers_and_a_stream_lose_and_double_nothing(spark, store, tmp_path):
    proxy, conf = store
    result = s3_faults.run_trial(spark, proxy, conf, "lose_response", seed=SEED, scratch=str(tmp_path),
                                 writers=4, statements=3)
    assert sum(result["faults_injected"].values()) > 0, json.dumps(result)
    assert result["ok"], json.dumps(result)
