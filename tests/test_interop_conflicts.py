"""The upsert race in Silt and in the reference Delta Lake: both refuse the second MERGE to commit.

Two MERGEs insert the same new key; the first is held while reading its source (after it has
taken its snapshot) until the second has committed (tests/interop/upsert_race.py). Delta Lake
fails the first with ConcurrentAppendException, and so must Silt: the table keeps one row.
"""
import sys

import pytest

from conftest import INTEROP_DIR
from test_interop import run_reference

pytestmark = pytest.mark.full  # second tier: make test-full

sys.path.insert(0, str(INTEROP_DIR))
import upsert_race  # noqa: E402 - from tests/interop


def test_both_engines_refuse_the_second_upsert_of_a_key(spark, tmp_path):
    (tmp_path / "silt").mkdir()
    (tmp_path / "delta").mkdir()
    ours = upsert_race.race(spark, "silt", str(tmp_path / "silt"))
    [reference] = run_reference([{"op": "upsert_race", "folder": str(tmp_path / "delta")}])
    assert reference["ok"], reference
    for engine, got in (("silt", ours), ("reference", reference)):
        assert got["error"] is not None and "ConcurrentAppendException" in got["error"], (engine, got)
        assert got["rows_with_key"] == 1 and got["values"] == ["second"], (engine, got)
