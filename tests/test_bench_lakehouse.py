"""The lakehouse benchmark (bench/lakehouse.py) in a small configuration, so that it keeps working:
TPC-DS at scale factor 0.1, six queries, one round of maintenance, Silt, the reference Delta Lake
and the Parquet floor each in a process of its own. Second tier (`make test-full`)."""
import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.full

QUERIES = "q3,q7,q19,q42,q55,q79"  # q79 reads store sales of dates a round changes: its answer moves


@pytest.fixture(scope="module")
def result():
    import sys
    sys.path.insert(0, str(REPO_ROOT))
    from bench import lakehouse
    args = lakehouse.parser().parse_args(["--sf", "0.1", "--rounds", "1", "--queries", QUERIES, "--plot", ""])
    return lakehouse.measure(args)


def test_every_query_runs_and_the_engines_agree_in_every_phase(result):
    assert result["failed_queries"] == [], result["query_errors"]
    assert result["common_queries"] == QUERIES.split(",")
    assert result["answers"] == {"agree": True, "differences": {}}
    assert set(result["engines"]) == {"silt", "delta", "floor"}
    for name in ("silt", "delta"):
        assert list(result["engines"][name]["phases"]) == [
            "load", "run 0", "maintenance 1", "run 1", "optimize", "final run", "time travel"]


def test_the_round_changes_the_tables_and_optimize_compacts_them(result):
    silt = result["engines"]["silt"]["phases"]
    files = {p: silt[p]["tables"]["fact_files"] for p in ("load", "maintenance 1", "optimize")}
    assert files["maintenance 1"] > files["load"], files
    assert files["optimize"] < files["maintenance 1"], files
    before, after = silt["run 0"]["queries"]["q79"], silt["run 1"]["queries"]["q79"]
    assert before["checksum"] != after["checksum"], "the round's MERGE and DELETE left q79's answer as it was"
    # Time travel to the version before the round gives run 0's answers (checked for every query).
    assert silt["time travel"]["queries"]["q79"]["checksum"] == before["checksum"]


def test_the_report_has_its_ratios_targets_and_picture(result, tmp_path):
    from bench import lakehouse
    assert {"load", "maintenance", "query run", "degradation"} <= set(result["targets"])
    assert all(v > 0 for v in result["ratios"].values())
    rows = lakehouse.summary_rows(result)
    assert rows[-1] == ("lakehouse", "  answers", "agree")
    assert len(rows) == 1 + len(result["ratios"]) + len(result["targets"]) + 1
    lakehouse.plot(result, tmp_path / "rounds.png")
    assert (tmp_path / "rounds.png").stat().st_size > 1000
