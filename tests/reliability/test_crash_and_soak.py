"""Kill -9 trials and the concurrent soak: a slice in `make test`, CI's size in the second tier
(`make test-full`), the full figures in `make reliability`."""
import os

import pytest

import crash
import soak

# CI's soak: one process of each kind (the report runs all nine of soak.ROLES for 60 s); the slice
# races an appender, an upserter and a reader.
CI_ROLES = [("appender", 0), ("upserter", 0), ("upserter", 1), ("dml", 0), ("optimizer", 0), ("maintainer", 0), ("reader", 0)]
SLICE_ROLES = [("appender", 0), ("upserter", 0), ("reader", 0)]


def tiers(slice_value, ci_value):
    """The test's parameter for make test (the slice) and for the second tier (CI's size)."""
    return pytest.mark.parametrize("size", [pytest.param(slice_value, id="slice"),
                                            pytest.param(ci_value, id="ci", marks=pytest.mark.full)])


@tiers(2, int(os.environ.get("SILT_CRASH_TRIALS", "6")))
def test_killed_writers_leave_the_last_committed_version(spark, tmp_path, size):
    trials = size
    report = crash.run_trials(spark, tmp_path / "t", trials, seed=11)
    assert report["trials"] == trials and report["operations_completed"] > 0
    # every kind of write was in flight when a writer was killed, and kills between writing and
    # committing left files behind (which the final VACUUM removed)
    assert set(report["kills_by_operation_in_flight"]) >= set(crash.KILL_TARGETS[:trials])
    assert report["trials_leaving_uncommitted_files"] > 0 and report["uncommitted_files_after_final_vacuum"] == 0


@tiers((5.0, SLICE_ROLES), (float(os.environ.get("SILT_SOAK_SECONDS", "15")), CI_ROLES))
def test_soak_of_concurrent_processes_loses_nothing(spark, tmp_path, size):
    seconds, roles = size
    report = soak.run_soak(spark, tmp_path / "t", seconds=seconds, roles=roles)
    assert report["operations_ok"].get("append", 0) > 0 and report["reads"] > 0
    assert report["operations_ok"].get("upsert", 0) > 0 and report["keys_twice"] == 0


@pytest.mark.full  # second tier only: make test's crash slice is the killed writers'
@pytest.mark.parametrize("size", [[1, 2, 2]], ids=["ci"])
def test_a_stream_killed_mid_batch_writes_every_row_once(spark, tmp_path, size):
    import stream_crash
    report = stream_crash.run_trials(spark, tmp_path, kill_points=size)
    assert report["target_rows"] == report["source_rows"] == report["distinct"]
    # the kill before a commit added nothing; those after one left a batch the checkpoint had not marked done
    assert [k["target_commits_added"] for k in report["kills"]] == [0, 1, 1][:len(size)]
