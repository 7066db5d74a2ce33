"""Damaged and hostile tables: each case of the corrupt-input matrix gives a typed error naming
the problem, or, where a fallback is documented, exactly the pristine rows. Never a wrong answer."""
import shutil

import pytest

from corruption import CASES, build_pristine, rows
from silt.errors import translate


@pytest.fixture(scope="module")
def pristine(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("pristine")
    tables = {}
    for v2 in (False, True):
        p = base / ("v2" if v2 else "classic")
        build_pristine(spark, p, v2=v2)
        tables[v2] = (p, rows(spark, p))
    return tables


def outcome(spark, path):
    """('read', rows) or ('error', (class name, message)); any other failure propagates."""
    try:
        return "read", rows(spark, path)
    except Exception as e:  # noqa: BLE001 - classified below
        typed = translate(e)
        if typed is None:
            raise
        return "error", (type(typed).__name__, str(typed))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_damaged_table(spark, pristine, tmp_path, case):
    src, expected = pristine[case.v2]
    t = tmp_path / "t"
    shutil.copytree(src, t)
    named = case.damage(t)
    key = "spark.silt.read.allowFilesOutsideTable"
    if case.strict:
        spark.conf.set(key, "false")
    try:
        kind, got = outcome(spark, t)
    finally:
        spark.conf.unset(key)
    if case.outcome == "read":
        assert kind == "read", f"expected a correct read, got {got}"
        assert got == expected
    else:
        assert kind == "error", "expected a typed error, got a read of %d rows" % len(got)
        name, message = got
        assert name == case.error, message
        assert named in message, f"the error does not name {named!r}: {message}"
