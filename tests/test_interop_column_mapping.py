"""Column mapping across engines: the reference Delta Lake renames, drops and re-adds columns of a
name-mode table with deletion vectors and Silt reads every version; Silt does the same and the
reference Delta Lake and delta-rs read every version (DuckDB the data columns); an id-mode table
Silt wrote reads right in the reference engine and delta-rs."""
import pytest

from conftest import load_canon
from test_interop import read_duckdb, run_reference

pytestmark = pytest.mark.full  # second tier: make test-full

# One history, run by each engine on its own table: (description, SQL with {t} for the table).
STEPS = [
    "CREATE TABLE {t} (id BIGINT, part STRING, v STRING, w INT, s STRUCT<a: INT, b: STRING>) USING {fmt} "
    "PARTITIONED BY (part) TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.enableDeletionVectors' = 'true')",
    "INSERT INTO {t} SELECT id, CAST(id % 3 AS STRING), CONCAT('v', id), CAST(id AS INT), "
    "named_struct('a', CAST(id AS INT), 'b', CONCAT('b', id)) FROM range(0, 300)",
    "ALTER TABLE {t} RENAME COLUMN v TO label",
    "ALTER TABLE {t} DROP COLUMN w",
    "ALTER TABLE {t} ADD COLUMNS (w STRING)",
    "INSERT INTO {t} SELECT id, 'new', CONCAT('n', id), named_struct('a', 0, 'b', 'n'), 'fresh' FROM range(300, 310)",
    "DELETE FROM {t} WHERE id % 7 = 0",
    "ALTER TABLE {t} RENAME COLUMN s.b TO beta",
    "UPDATE {t} SET label = 'changed' WHERE id % 11 = 1",
]
VERSIONS = range(len(STEPS))

ID_STEPS = [
    "CREATE TABLE {t} (id BIGINT, s STRUCT<x: INT, y: STRING>, m MAP<STRING, INT>) USING {fmt} "
    "TBLPROPERTIES ('delta.columnMapping.mode' = 'id')",
    "INSERT INTO {t} SELECT id, named_struct('x', CAST(id AS INT), 'y', CONCAT('y', id)), map('k', CAST(id AS INT)) "
    "FROM range(0, 50)",
    "ALTER TABLE {t} RENAME COLUMN s.x TO ex",
    "ALTER TABLE {t} DROP COLUMN m",
]


def rendered(table_or_df, columns=None):
    table = load_canon().arrow_table(table_or_df)
    return load_canon().render_table(table, columns or table.column_names)[0]


def read_deltalake(path, version):
    """delta-rs through its DataFusion scan (its pyarrow reader refuses deletion vectors)."""
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    return pa.table(QueryBuilder().register("t", DeltaTable(path, version=version)).execute("SELECT * FROM t").read_all())


def silt_version(spark, path, version):
    return spark.read.format("silt").option("versionAsOf", version).load(path)


@pytest.fixture(scope="module")
def tables(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("interop_cm")
    silt_path, silt_id, ref_path = str(root / "silt_name"), str(root / "silt_id"), str(root / "ref_name")
    for steps, path in ((STEPS, silt_path), (ID_STEPS, silt_id)):
        for step in steps:
            spark.sql(step.format(t=f"silt.`{path}`", fmt="silt"))
    ops = [{"op": "sql", "statements": [s.format(t=f"delta.`{ref_path}`", fmt="delta") for s in STEPS]}]
    ops += [{"op": "read", "path": ref_path, "version": v} for v in VERSIONS]
    ops += [{"op": "read", "path": silt_path, "version": v} for v in VERSIONS]
    ops += [{"op": "read", "path": silt_id, "version": v} for v in range(len(ID_STEPS))]
    results = run_reference(ops)
    assert results[0]["ok"], results[0].get("error")
    n = len(STEPS)
    return {"silt": silt_path, "silt_id": silt_id, "ref": ref_path,
            "ref_reads_ref": results[1:1 + n], "ref_reads_silt": results[1 + n:1 + 2 * n],
            "ref_reads_silt_id": results[1 + 2 * n:]}


@pytest.mark.parametrize("version", VERSIONS)
def test_silt_reads_every_version_of_the_reference_table(spark, tables, version):
    ref = tables["ref_reads_ref"][version]
    assert ref["ok"], ref.get("error")
    ours = silt_version(spark, tables["ref"], version)
    assert ours.columns == ref["columns"]
    assert rendered(ours, ref["columns"]) == ref["rows"]


@pytest.mark.parametrize("version", VERSIONS)
def test_reference_reads_every_version_of_the_silt_table(spark, tables, version):
    ref = tables["ref_reads_silt"][version]
    assert ref["ok"], ref.get("error")
    ours = silt_version(spark, tables["silt"], version)
    assert ref["columns"] == ours.columns
    assert ref["rows"] == rendered(ours, ref["columns"])
    # the same history gives the same rows in both engines' tables
    assert ref["rows"] == tables["ref_reads_ref"][version]["rows"]


@pytest.mark.parametrize("version", VERSIONS)
def test_deltalake_reads_every_version_of_the_silt_table(spark, tables, version):
    ours = silt_version(spark, tables["silt"], version)
    theirs = read_deltalake(tables["silt"], version)
    assert theirs.column_names == ours.columns
    assert sorted(rendered(theirs)) == sorted(rendered(ours))


def test_duckdb_reads_the_silt_table_as_it_reads_the_reference_one(spark, tables):
    # DuckDB 1.5.5's delta extension reads the data columns of a column-mapped table, but its
    # partition column as null (partition values are keyed by physical name): the same for both.
    ours = spark.read.format("silt").load(tables["silt"])
    silt_by_duckdb, ref_by_duckdb = read_duckdb(tables["silt"]), read_duckdb(tables["ref"])
    assert sorted(rendered(silt_by_duckdb, ours.columns)) == sorted(rendered(ref_by_duckdb, ours.columns))
    assert set(silt_by_duckdb.column("part").to_pylist()) == {None}
    data = [c for c in ours.columns if c != "part"]
    assert sorted(rendered(silt_by_duckdb, data)) == sorted(rendered(ours.select(*data), data))


@pytest.mark.parametrize("version", range(len(ID_STEPS)))
def test_reference_reads_the_silt_id_mode_table(spark, tables, version):
    ref = tables["ref_reads_silt_id"][version]
    assert ref["ok"], ref.get("error")
    ours = silt_version(spark, tables["silt_id"], version)
    assert ref["columns"] == ours.columns and ref["rows"] == rendered(ours, ref["columns"])
    assert version < 1 or ref["num_rows"] == 50
    theirs = read_deltalake(tables["silt_id"], version)
    assert theirs.column_names == ours.columns and sorted(rendered(theirs)) == sorted(rendered(ours))


def test_silt_writes_a_table_the_reference_created_and_the_reference_reads_it(spark, tmp_path):
    # Delta Lake 4.4 writes protocol (2, 7) with writer features for name mode; Silt writes on top
    path = str(tmp_path / "ref_created")
    created = run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{path}` (id BIGINT, part STRING, v STRING) USING delta PARTITIONED BY (part) "
        "TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.enableDeletionVectors' = 'true')",
        f"INSERT INTO delta.`{path}` SELECT id, CAST(id % 2 AS STRING), CONCAT('v', id) FROM range(0, 100)",
        f"ALTER TABLE delta.`{path}` RENAME COLUMN v TO label"]}])
    assert created[0]["ok"], created[0].get("error")
    t = f"silt.`{path}`"
    spark.sql(f"INSERT INTO {t} SELECT id, 'new', CONCAT('n', id) FROM range(100, 110)")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN id TO ident")
    spark.sql(f"ALTER TABLE {t} ADD COLUMNS (extra STRING)")
    spark.sql(f"UPDATE {t} SET extra = 'e' WHERE ident % 10 = 3")
    spark.sql(f"DELETE FROM {t} WHERE ident % 7 = 0")
    ours = spark.read.format("silt").load(path)
    res = run_reference([{"op": "read", "path": path}])[0]
    assert res["ok"], res.get("error")
    assert res["columns"] == ours.columns == ["ident", "part", "label", "extra"]
    assert res["rows"] == rendered(ours, res["columns"]) and res["num_rows"] == 110 - 16
