"""Tables on a misbehaving S3: a proxy between S3A and the local S3 server (tests/faulty_s3.py)
throttles, delays, resets, fails listings and loses the responses of completed commits; the trials
of tests/reliability/s3_faults.py check that nothing acknowledged is lost or doubled and nothing
reported failed is in the log. The lost commit response runs in `make test`; the other faults and
the mix in the second tier (`make reliability` reports them at a larger size)."""
import sys
from pathlib import Path

import pytest

import silt
from conftest import s3_supported
from faulty_s3 import FaultyS3, Rule
from s3server import S3Server

sys.path.insert(0, str(Path(__file__).resolve().parent / "reliability"))
import s3_faults  # noqa: E402
from s3_faults import BUCKET, COMMIT, S3A_SETTINGS  # noqa: E402

SEED = 20261129


@pytest.fixture(scope="module")
def store(spark, tmp_path_factory):
    """(proxy, the session's settings for the bucket behind it)."""
    if not s3_supported():
        pytest.skip(f"this pyspark's Hadoop ({silt.session.hadoop_version()}) cannot create S3 objects "
                    "conditionally, so Silt does not commit to S3 with it (Spark 4.1 and later can)")
    server = S3Server.start(tmp_path_factory.mktemp("s3-faults"))
    (server.root / "data" / BUCKET).mkdir()
    proxy = FaultyS3.start(server.endpoint, seed=SEED)
    # the bucket behind the proxy gets its own endpoint and short back-offs: S3A caches a file system
    # per bucket, so the other S3 tests' bucket keeps talking to the server directly
    conf = {k: v for k, v in server.hadoop_conf().items() if k != "fs.s3a.endpoint"}
    conf[f"fs.s3a.bucket.{BUCKET}.endpoint"] = proxy.endpoint
    conf.update({k.replace("fs.s3a.", f"fs.s3a.bucket.{BUCKET}.", 1): v for k, v in S3A_SETTINGS.items()})
    conf["fs.s3a.endpoint"] = server.endpoint
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


@pytest.mark.full  # second tier: a trial of each fault, then the mix (~20 s each)
@pytest.mark.parametrize("scenario", ["throttle", "server_error", "delay", "reset", "lose_response", "refuse",
                                      "list_failure", "mix"])
def test_writers_and_a_stream_lose_and_double_nothing(spark, store, tmp_path, scenario):
    proxy, conf = store
    result = s3_faults.run_trial(spark, proxy, conf, scenario, seed=SEED, scratch=str(tmp_path),
                                 writers=4, statements=4)
    assert sum(result["faults_injected"].values()) > 0, result
    assert result["ok"], result
