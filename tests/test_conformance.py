"""Delta conformance: every table of the corpus (tests/conformance) must read right with Silt (or be refused).

Go through MANIFEST.json, copy each table to a scratch folder (filling in the template placeholder
where there is one), read the copy with Silt at its latest version and at every recorded version,
render the rows with canon.py, and compare with the expected file (made by make_expected.py from
delta-rs and the reference Delta Lake). Tables the corpus marks expect_error must
be refused with Silt's error for that very problem.

Features that later issues implement are listed in NOT_YET; a table needing any of them is an
expected failure (strict: when it starts to pass, the test fails until it is taken off the list).
"""
import pytest

import corpus
from conftest import load_canon

pytestmark = pytest.mark.smoke  # the whole corpus, on every Spark minor

# The one list of not-yet-implemented features: feature tag -> why.
NOT_YET: dict[str, str] = {}

# expect_error tables: words in the expected file's `why` -> the Silt error that names the problem,
# plus text its message must contain.
EXPECTED_ERRORS = [
    (("not contiguous", "missing"), "MissingCommitException", None),
    (("minreaderversion 99", "reader version 99"), "UnsupportedTableFeatureException", "99"),
    (("no _delta_log", "not a delta table"), "NotADeltaTableException", None),
]

MANIFEST = corpus.manifest()


def _params(kind):
    out = []
    for entry in MANIFEST:
        if entry["kind"] != kind:
            continue
        missing = [f for f in entry["features"] if f in NOT_YET]
        marks = [pytest.mark.xfail(strict=True, reason="; ".join(f"{f}: {NOT_YET[f]}" for f in missing))] \
            if missing else []
        out.append(pytest.param(entry, id=entry["name"], marks=marks))
    return out


def _read(spark, path, version=None):
    reader = spark.read.format("silt")
    if version is not None:
        reader = reader.option("versionAsOf", int(version))
    return reader.load(str(path))


def _check(df, exp, what):
    canon = load_canon()
    assert list(df.columns) == exp["columns"], f"{what}: columns {df.columns} != expected {exp['columns']}"
    table = canon.arrow_table(df)
    rows, keys = canon.render_table(table, exp["columns"])
    if "rows" in exp:
        if rows != exp["rows"]:
            want = [canon.canonical_json(r) for r in exp["rows"]]
            missing = sorted(set(want) - set(keys))
            extra = sorted(set(keys) - set(want))
            pytest.fail(f"{what}: {len(rows)} rows, expected {exp['num_rows']}\n"
                        f"  missing ({len(missing)}): {missing[:20]}\n"
                        f"  unexpected ({len(extra)}): {extra[:20]}"
                        + ("" if missing or extra else "\n  (same rows, different multiplicities)"))
    assert len(rows) == exp["num_rows"], f"{what}: {len(rows)} rows, expected {exp['num_rows']}"
    assert canon.digest(rows) == exp["digest"], f"{what}: digest differs"


@pytest.mark.parametrize("entry", _params("data"))
def test_reads_table(spark, entry, tmp_path):
    table = corpus.prepare(entry, tmp_path)
    exp = corpus.expected(entry)
    _check(_read(spark, table), exp, f"{entry['name']} @ latest (v{exp['version']})")
    for v, vexp in sorted(exp.get("versions", {}).items(), key=lambda kv: int(kv[0])):
        _check(_read(spark, table, v), vexp, f"{entry['name']} @ v{v}")
    # The snapshot version, as the engine exposes it: the newest entry of DESCRIBE HISTORY.
    latest = spark.sql(f"DESCRIBE HISTORY '{table}' LIMIT 1").collect()
    assert [r["version"] for r in latest] == [exp["version"]], \
        f"DESCRIBE HISTORY LIMIT 1 gave {latest}, expected version {exp['version']}"


def _classify(why):
    low = why.lower()
    for words, cls, must_contain in EXPECTED_ERRORS:
        if any(w in low for w in words):
            return cls, must_contain
    raise AssertionError(f"test_conformance.EXPECTED_ERRORS does not know this error: {why!r}")


@pytest.mark.parametrize("entry", _params("expect_error"))
def test_refuses_table(spark, entry, tmp_path):
    table = corpus.prepare(entry, tmp_path)
    exp = corpus.expected(entry)
    cls, must_contain = _classify(exp["why"])
    with pytest.raises(Exception) as err:
        load_canon().arrow_table(_read(spark, table))
    msg = str(err.value)
    assert type(err.value).__name__ == cls, f"expected {cls} ({exp['why']}), got {type(err.value).__name__}: {msg[:2000]}"
    if must_contain:
        assert must_contain in msg, f"{cls}'s message does not name {must_contain!r}: {msg}"


CHECKPOINT_TAGS = {"checkpoint-v1", "checkpoint-multipart", "checkpoint-v2-json", "checkpoint-v2-parquet"}


@pytest.mark.parametrize("entry", [p for p in _params("data")
                                   if CHECKPOINT_TAGS & set(p.values[0]["features"])])
def test_reads_table_from_its_checkpoint_alone(spark, entry, tmp_path):
    """The same table with every commit before its newest checkpoint deleted (as log cleanup
    does): the rows must now come from the checkpoint (and its sidecars), not from the commits."""
    table = corpus.prepare(entry, tmp_path)
    log = table / "_delta_log"
    versions = [int(p.name[:20]) for p in log.iterdir() if ".checkpoint." in p.name and p.name[:20].isdigit()]
    newest = max(versions)
    for p in list(log.iterdir()):
        if p.name.endswith(".json") and p.name[:20].isdigit() and ".checkpoint." not in p.name \
                and int(p.name[:20]) < newest:
            p.unlink()
    exp = corpus.expected(entry)
    _check(_read(spark, table), exp, f"{entry['name']} @ latest from checkpoint {newest}")
