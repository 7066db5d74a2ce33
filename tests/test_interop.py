"""Interoperability: what Silt writes, the peers read identically, and the other way round.

The data set (tests/interop/dataset.py) has every primitive type with nulls and a null
partition value, and is written in three commits: append, append, overwrite with replaceWhere
on the partition column. Each writer (Silt, delta-rs, the reference Delta Lake on Spark) writes
it; each reader must return exactly the rows the data set says, rendered with the conformance
corpus' canon.py, in the schema's column order (the partition column `p` is in the middle).

Readers: Silt; delta-rs (`deltalake.DeltaTable(...).to_pyarrow_table()`); DuckDB's delta
extension (the `duckdb-extension-delta` package, loaded from its file: no auto-install); the
reference Delta Lake (delta-spark from Maven Central) in a subprocess of its own, run once for
the whole module (tests/interop/reference_delta.py).

Types: every reader's Arrow types differ a little (DuckDB labels instants `Etc/UTC`, delta-rs
and Spark `UTC`; strings may come as string_view); canon.py renders them all the same, so no
difference among the readers is left that needs excusing. The unavoidable limits of the data
(timestamps kept inside the INT96-as-nanoseconds range, no NaN) are explained in dataset.py.
"""
import glob
import json
import os
import sys

import pytest

from conftest import CANON_PY, INTEROP_DIR, load_canon, python_env

sys.path.insert(0, str(INTEROP_DIR))
import dataset  # noqa: E402

VERSIONS = dataset.VERSIONS          # 0, 1, 2; 2 is the latest
LATEST = VERSIONS[-1]
REFERENCE_TIMEOUT_S = int(os.environ.get("SILT_REFERENCE_TIMEOUT", "900"))


# ---------------------------------------------------------------- helpers

def expected_rows(version):
    rows, _ = load_canon().render_table(dataset.arrow_table(dataset.rows_at_version(version)),
                                        dataset.COLUMN_NAMES)
    return rows


def assert_rows(who, version, columns, rows):
    canon = load_canon()
    assert list(columns) == dataset.COLUMN_NAMES, f"{who} @ v{version}: columns {list(columns)}"
    want = expected_rows(version)
    if rows != want:
        got_k = [canon.canonical_json(r) for r in rows]
        want_k = [canon.canonical_json(r) for r in want]
        missing = sorted(set(want_k) - set(got_k))
        extra = sorted(set(got_k) - set(want_k))
        pytest.fail(f"{who} @ v{version}: {len(rows)} rows, expected {len(want)}\n"
                    f"  missing ({len(missing)}): {missing[:10]}\n  unexpected ({len(extra)}): {extra[:10]}")


def assert_arrow(who, version, table):
    rows, _ = load_canon().render_table(table, dataset.COLUMN_NAMES)
    assert_rows(who, version, table.column_names, rows)


def read_silt(spark, path, version=None):
    reader = spark.read.format("silt")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    return load_canon().arrow_table(reader.load(str(path)))


def read_deltalake(path, version=None):
    from deltalake import DeltaTable
    return DeltaTable(str(path), version=version).to_pyarrow_table()


def duckdb_extension_file():
    import duckdb_extension_delta
    pkg = os.path.dirname(duckdb_extension_delta.__file__)
    files = sorted(glob.glob(os.path.join(pkg, "**", "*.duckdb_extension"), recursive=True))
    assert files, f"no .duckdb_extension file under {pkg}"
    return files[-1]


def read_duckdb(path):
    import duckdb
    con = duckdb.connect(config={"autoinstall_known_extensions": False,
                                 "autoload_known_extensions": False})
    try:
        con.execute(f"LOAD '{duckdb_extension_file()}'")
        return con.execute("SELECT * FROM delta_scan(?)", [str(path)]).arrow().read_all()
    finally:
        con.close()


def write_dataset_silt(spark, path):
    w = lambda rows: dataset.spark_df(spark, rows).write.format("silt").partitionBy(*dataset.PARTITION_BY)
    w(dataset.BATCHES[0]).mode("append").save(str(path))
    w(dataset.BATCHES[1]).mode("append").save(str(path))
    w(dataset.BATCHES[2]).mode("overwrite").option("replaceWhere", dataset.REPLACE_WHERE).save(str(path))


def write_dataset_deltalake(path):
    from deltalake import write_deltalake
    p = dataset.PARTITION_BY
    write_deltalake(str(path), dataset.arrow_table(dataset.BATCHES[0]), partition_by=p, mode="append")
    write_deltalake(str(path), dataset.arrow_table(dataset.BATCHES[1]), partition_by=p, mode="append")
    write_deltalake(str(path), dataset.arrow_table(dataset.BATCHES[2]), partition_by=p,
                    mode="overwrite", predicate=dataset.REPLACE_WHERE)


def run_reference(ops):
    """One reference-Delta subprocess doing all `ops`; returns their results in order. Skips the
    test on a Spark minor no reference Delta Lake release is built for (4.3)."""
    from reference_delta import DELTA_PACKAGE, call
    if DELTA_PACKAGE is None:
        import pyspark
        pytest.skip(f"no reference Delta Lake release is built for Spark {pyspark.__version__}")
    return call(ops, CANON_PY, REFERENCE_TIMEOUT_S, env=python_env())


def result_on_silt(spark, program, **names):
    """The `result` a program (Python source written for Delta Lake's API) sets on Silt, run with
    `spark`, Silt's `DeltaTable` and `names` defined."""
    from silt.delta.tables import DeltaTable
    scope = {"spark": spark, "DeltaTable": DeltaTable, **names}
    exec(program, scope)
    return scope["result"]


def result_on_reference(program, **names):
    """The `result` the same program sets on the reference Delta Lake (`names` given as literals)."""
    prelude = "".join(f"{k} = {v!r}\n" for k, v in names.items())
    [res] = run_reference([{"op": "api", "code": prelude + program}])
    assert res["ok"], res.get("error")
    return eval(res["result"])  # noqa: S307 - a repr the reference printed


def log_actions(path, version):
    with open(os.path.join(str(path), "_delta_log", f"{version:020d}.json")) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- tables (module-scoped)

@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("interop")


@pytest.fixture(scope="module")
def silt_table(spark, workdir):
    path = workdir / "written_by_silt"
    write_dataset_silt(spark, path)
    return path


@pytest.fixture(scope="module")
def deltalake_table(workdir):
    path = workdir / "written_by_deltalake"
    write_dataset_deltalake(path)
    return path


@pytest.fixture(scope="module")
def reference(request, workdir):
    """Runs the reference Delta Lake once: it writes its own table and reads Silt's.

    Silt's table is asked for lazily, so that a failing Silt write does not also take down the
    tests of the other direction."""
    ref_path = workdir / "written_by_reference_delta"
    ops = [{"op": "write_dataset", "path": str(ref_path)}]
    silt_error = None
    try:
        silt_path = request.getfixturevalue("silt_table")
    except BaseException as e:  # the write is tested (and reported) by test_silt_write itself
        silt_path, silt_error = None, e
    if silt_path is not None:
        ops += [{"op": "read", "path": str(silt_path), "version": v} for v in VERSIONS]
        ops += [{"op": "read", "path": str(silt_path)}, {"op": "history", "path": str(silt_path)}]
    results = run_reference(ops)
    return {"ref_path": ref_path, "write": results[0], "reads": results[1:1 + len(VERSIONS) + 1],
            "history": results[-1] if silt_path is not None else None, "silt_error": silt_error}


# ---------------------------------------------------------------- Silt writes

def test_silt_write(silt_table):
    """The three commits land as versions 0, 1, 2."""
    commits = sorted(int(f[:20]) for f in os.listdir(silt_table / "_delta_log")
                     if len(f) == 25 and f.endswith(".json") and f[:20].isdigit())
    assert commits == VERSIONS


def test_silt_log_protocol_and_stats(silt_table):
    """Silt's log declares what the data needs and carries statistics for every file."""
    protocols = [a["protocol"] for a in log_actions(silt_table, 0) if "protocol" in a]
    assert len(protocols) == 1, protocols
    proto = protocols[0]
    # TIMESTAMP_NTZ columns need the timestampNtz table feature (reader 3 / writer 7).
    assert proto["minReaderVersion"] == 3 and proto["minWriterVersion"] == 7, proto
    assert "timestampNtz" in proto.get("readerFeatures", []), proto
    assert "timestampNtz" in proto.get("writerFeatures", []), proto
    for v in VERSIONS:
        adds = [a["add"] for a in log_actions(silt_table, v) if "add" in a]
        assert adds, f"v{v} adds no file"
        for add in adds:
            assert add.get("stats"), f"v{v}: add without stats: {add['path']}"
            stats = json.loads(add["stats"])
            assert stats.get("numRecords", 0) > 0, stats


@pytest.mark.parametrize("version", VERSIONS + [None], ids=[f"v{v}" for v in VERSIONS] + ["latest"])
def test_silt_reads_silt(spark, silt_table, version):
    assert_arrow("silt", LATEST if version is None else version, read_silt(spark, silt_table, version))


@pytest.mark.parametrize("version", VERSIONS + [None], ids=[f"v{v}" for v in VERSIONS] + ["latest"])
def test_deltalake_reads_silt(silt_table, version):
    assert_arrow("delta-rs", LATEST if version is None else version, read_deltalake(silt_table, version))


def test_duckdb_reads_silt(silt_table):
    assert_arrow("duckdb", LATEST, read_duckdb(silt_table))


@pytest.mark.parametrize("i,version", list(enumerate(VERSIONS + [None])),
                         ids=[f"v{v}" for v in VERSIONS] + ["latest"])
@pytest.mark.smoke
@pytest.mark.reference
@pytest.mark.full  # second tier: the reference's JVM
def test_reference_reads_silt(reference, i, version):
    if reference["silt_error"] is not None:
        pytest.fail(f"Silt could not write the table: {reference['silt_error']}")
    res = reference["reads"][i]
    assert res["ok"], f"reference Delta could not read Silt's table @ {version}: {res['error']}"
    assert_rows("reference delta", LATEST if version is None else version, res["columns"], res["rows"])


@pytest.mark.full  # second tier: the reference's JVM
def test_reference_history_of_silt(reference):
    if reference["silt_error"] is not None:
        pytest.fail(f"Silt could not write the table: {reference['silt_error']}")
    res = reference["history"]
    assert res["ok"], res.get("error")
    assert res["versions"] == VERSIONS


# ---------------------------------------------------------------- Silt reads the peers' tables

@pytest.mark.parametrize("version", VERSIONS + [None], ids=[f"v{v}" for v in VERSIONS] + ["latest"])
def test_silt_reads_deltalake(spark, deltalake_table, version):
    assert_arrow("silt (delta-rs table)", LATEST if version is None else version,
                 read_silt(spark, deltalake_table, version))


@pytest.mark.smoke
@pytest.mark.reference
@pytest.mark.full  # second tier: the reference's JVM
@pytest.mark.parametrize("version", VERSIONS + [None], ids=[f"v{v}" for v in VERSIONS] + ["latest"])
def test_silt_reads_reference(spark, reference, version):
    assert reference["write"]["ok"], f"reference Delta could not write: {reference['write']['error']}"
    assert_arrow("silt (reference Delta table)", LATEST if version is None else version,
                 read_silt(spark, reference["ref_path"], version))
