"""UniForm: a Silt table with `delta.universalFormat.enabledFormats = iceberg` carries Iceberg metadata
(format version 2) beside its log, on a path and in any catalog, and Iceberg readers that no one here wrote
read the same rows as Silt after each kind of commit: pyiceberg (`StaticTable.from_metadata`) and DuckDB's
iceberg extension (`iceberg_scan` of the table's path, through `metadata/version-hint.text`; loaded from its
package file, with the avro extension it needs, auto-install off). Iceberg's Spark runtime reads them in
tests/test_uniform_spark.py.

The icebergCompatV1/V2 features' rules are refused by name when a statement breaks them; the Delta log
stays the one source of truth (tests/test_uniform_conversions.py: when and how conversions run).

make test runs each kind of commit and the refusals; the rest is the second tier's."""
import glob
import json
import os
import re

import pytest

from conftest import load_canon, needs_spark_4

UNIFORM = ("'delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg'")


# ---------------------------------------------------------------- readers

def metadata_files(path):
    files = glob.glob(os.path.join(str(path), "metadata", "v*.metadata.json"))
    return sorted(files, key=lambda f: int(os.path.basename(f)[1:].split(".")[0]))


def current_metadata(path):
    with open(os.path.join(str(path), "metadata", "version-hint.text")) as f:
        hint = f.read()
    assert hint == hint.strip(), "version-hint.text must hold the number alone"
    return os.path.join(str(path), "metadata", f"v{hint}.metadata.json")


def iceberg_table(path):
    from pyiceberg.table import StaticTable
    return StaticTable.from_metadata(current_metadata(path))


def rendered(table, columns):
    rows, _ = load_canon().render_table(table, columns)
    return sorted(load_canon().canonical_json(r) for r in rows)


def silt_rows(spark, path, version=None):
    reader = spark.read.format("silt")
    if version is not None:
        reader = reader.option("versionAsOf", version)
    df = reader.load(str(path))
    return rendered(load_canon().arrow_table(df), df.columns), df.columns


def pyiceberg_rows(path, columns, snapshot_id=None):
    return rendered(iceberg_table(path).scan(snapshot_id=snapshot_id).to_arrow(), columns)


def duckdb_extension(module):
    pkg = os.path.dirname(module.__file__)
    files = sorted(glob.glob(os.path.join(pkg, "**", "*.duckdb_extension"), recursive=True))
    assert files, f"no .duckdb_extension file under {pkg}"
    return files[-1]


def duckdb_rows(path, columns):
    import duckdb
    import duckdb_extension_avro
    import duckdb_extension_iceberg
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        con.execute(f"LOAD '{duckdb_extension(duckdb_extension_avro)}'")
        con.execute(f"LOAD '{duckdb_extension(duckdb_extension_iceberg)}'")
        return rendered(con.execute("SELECT * FROM iceberg_scan(?)", [str(path)]).arrow().read_all(), columns)
    finally:
        con.close()


def assert_iceberg_reads_as_silt(spark, path, step):
    want, columns = silt_rows(spark, path)
    assert pyiceberg_rows(path, columns) == want, f"pyiceberg after {step}"
    assert duckdb_rows(path, columns) == want, f"DuckDB after {step}"
    props = iceberg_table(path).metadata.properties
    latest = spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").collect()[0]["version"]
    assert props["delta-version"] == str(latest), f"the Iceberg metadata after {step} is of the latest version"


def meta_partition_key(path):
    """The physical name of the table's partition column, which its files' folders and columns carry."""
    meta = next(json.loads(line)["metaData"] for line in open(path / "_delta_log" / f"{0:020d}.json")
                if '"metaData"' in line)
    part = meta["partitionColumns"][0]
    field = next(f for f in json.loads(meta["schemaString"])["fields"] if f["name"] == part)
    return field["metadata"]["delta.columnMapping.physicalName"]


def condition(e):
    """The error class an error carries (a Silt exception's, or the JVM one's)."""
    if hasattr(e, "getCondition"):
        return e.getCondition() or ""
    return (getattr(e, "java_exception", None) and e.java_exception.getCondition()) or ""


SYNC = "spark.databricks.delta.uniform.iceberg.sync.convert.enabled"


@pytest.fixture(autouse=True)
def converted_before_returning(spark):
    """Each conversion before its statement returns (Delta Lake's setting, which Silt honours), so that a test
    reads the metadata of the commit it just made; test_uniform_conversions.py tests the default."""
    spark.conf.set(SYNC, "true")
    yield
    spark.conf.unset(SYNC)


# ---------------------------------------------------------------- tests

@pytest.mark.smoke
def test_iceberg_readers_see_each_commit(spark, tmp_path):
    """Partitioned, every kind of commit: the Iceberg readers read what Silt reads after each."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, name STRING, d DATE, amt DECIMAL(10, 2), p INT) USING delta "
              f"PARTITIONED BY (p) TBLPROPERTIES ({UNIFORM})")
    assert_iceberg_reads_as_silt(spark, path, "CREATE")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('n', id), date_add(DATE'2024-01-01', CAST(id AS INT)), "
              "id / 4, CAST(id % 3 AS INT) FROM range(30)")
    assert_iceberg_reads_as_silt(spark, path, "INSERT")
    spark.sql(f"INSERT INTO {t} VALUES (100, NULL, NULL, NULL, NULL)")
    assert_iceberg_reads_as_silt(spark, path, "an append with a null partition")
    spark.sql(f"INSERT INTO {t} REPLACE WHERE p = 1 SELECT id, 'r', DATE'2025-01-01', 1.5, 1 FROM range(200, 203)")
    assert_iceberg_reads_as_silt(spark, path, "REPLACE WHERE")
    spark.sql(f"DELETE FROM {t} WHERE id % 5 = 0")
    assert_iceberg_reads_as_silt(spark, path, "DELETE")
    spark.sql(f"UPDATE {t} SET name = upper(name) WHERE p = 2")
    assert_iceberg_reads_as_silt(spark, path, "UPDATE")
    spark.sql(f"MERGE INTO {t} AS tg USING (SELECT id, 'm' AS name FROM range(25, 35)) AS s ON tg.id = s.id "
              "WHEN MATCHED THEN UPDATE SET name = s.name "
              "WHEN NOT MATCHED THEN INSERT (id, name, d, amt, p) VALUES (s.id, s.name, NULL, 0, 0)")
    assert_iceberg_reads_as_silt(spark, path, "MERGE")
    spark.sql(f"OPTIMIZE {t}")
    assert_iceberg_reads_as_silt(spark, path, "OPTIMIZE")
    spark.sql(f"INSERT OVERWRITE {t} SELECT id, 'o', NULL, 2, 7 FROM range(5)")
    assert_iceberg_reads_as_silt(spark, path, "INSERT OVERWRITE")
    # the metadata holds one snapshot per Delta version, each named by it
    snapshots = iceberg_table(path).metadata.snapshots
    versions = [int(s.summary["delta-version"]) for s in snapshots]
    assert versions == sorted(versions) and versions[-1] == len(versions) - 1


@pytest.mark.full
def test_iceberg_snapshot_of_an_older_version(spark, tmp_path):
    """Iceberg time travel: the snapshot recorded for Delta version k reads as Silt's version k."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING) USING delta TBLPROPERTIES ({UNIFORM})")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} SELECT id, 'v{i}' FROM range({i * 10}, {i * 10 + 10})")
    spark.sql(f"DELETE FROM {t} WHERE id < 15")
    by_version = {int(s.summary["delta-version"]): s.snapshot_id for s in iceberg_table(path).metadata.snapshots}
    for version in (1, 2, 4):
        want, columns = silt_rows(spark, path, version)
        assert pyiceberg_rows(path, columns, by_version[version]) == want, f"Delta version {version}"


@pytest.mark.full
def test_schema_changes_follow(spark, tmp_path):
    """Add, rename and drop columns (column mapping by name): the Iceberg schema follows by field id."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, a STRING, b INT) USING delta TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'x', 10)")
    spark.sql(f"ALTER TABLE {t} ADD COLUMN c DOUBLE")
    spark.sql(f"INSERT INTO {t} VALUES (2, 'y', 20, 2.5)")
    assert_iceberg_reads_as_silt(spark, path, "ADD COLUMN")
    spark.sql(f"ALTER TABLE {t} RENAME COLUMN a TO a2")
    assert_iceberg_reads_as_silt(spark, path, "RENAME COLUMN")
    spark.sql(f"ALTER TABLE {t} DROP COLUMN b")
    assert_iceberg_reads_as_silt(spark, path, "DROP COLUMN")
    schema = iceberg_table(path).schema()
    assert [f.name for f in schema.fields] == ["id", "a2", "c"]
    assert len(iceberg_table(path).metadata.schemas) == 4


@pytest.mark.full
def test_nested_types_carry_field_ids(spark, tmp_path):
    """Arrays, maps and structs: every Parquet field, lists' elements and maps' keys and values too, has the
    id the Iceberg schema gives it; partition columns are in the files, after the others; timestamps are int64."""
    import pyarrow.parquet as pq
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, tags ARRAY<STRING>, attrs MAP<STRING, INT>, "
              f"s STRUCT<a: INT, b: ARRAY<INT>>, ts TIMESTAMP, p STRING) USING delta PARTITIONED BY (p) "
              f"TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"INSERT INTO {t} VALUES (1, array('a', 'b'), map('k', 1), named_struct('a', 1, 'b', array(1, 2)), "
              "TIMESTAMP'2024-01-01 10:00:00', 'x'), (2, NULL, NULL, NULL, NULL, 'y')")
    assert_iceberg_reads_as_silt(spark, path, "INSERT")

    iceberg = iceberg_table(path).schema()
    want = {iceberg.find_field(n).field_id for n in ("id", "tags", "tags.element", "attrs.key", "attrs.value",
                                                      "s.a", "s.b.element", "ts", "p")}
    files = glob.glob(str(path / "**" / "*.parquet"), recursive=True)
    assert len(files) == 2
    for f in files:
        parquet = pq.ParquetFile(f)
        got = {int(i) for i in re.findall(r"field_id=(\d+)", str(parquet.schema))}
        assert want <= got, f"{f}: field ids {sorted(got)} lack {sorted(want - got)}"
        top = parquet.schema_arrow.names
        assert len(top) == 6 and top[-1] == meta_partition_key(path), "the partition column is in the file, last"
        columns = [parquet.schema.column(i) for i in range(len(parquet.schema))]
        ts = [c for c in columns if str(c.logical_type).startswith("Timestamp")]
        assert ts and all(c.physical_type == "INT64" for c in ts)
    # the table: column mapping by name, both features in its protocol, nested ids in the schema
    log = [json.loads(line) for line in open(path / "_delta_log" / f"{0:020d}.json")]
    protocol = next(a["protocol"] for a in log if "protocol" in a)
    meta = next(a["metaData"] for a in log if "metaData" in a)
    assert {"icebergCompatV2", "columnMapping"} <= set(protocol["writerFeatures"])
    assert meta["configuration"]["delta.columnMapping.mode"] == "name"
    tags_field = next(f for f in json.loads(meta["schemaString"])["fields"] if f["name"] == "tags")
    assert list(tags_field["metadata"]["delta.columnMapping.nested.ids"]) == [
        tags_field["metadata"]["delta.columnMapping.physicalName"] + ".element"]
    adds = [json.loads(line)["add"] for line in open(path / "_delta_log" / f"{1:020d}.json") if '"add"' in line]
    assert all(a["tags"] == {"ICEBERG_COMPAT_VERSION": "2"} for a in adds)


@pytest.mark.parametrize("ddl, error", [
    ("CREATE TABLE {t} (id INT) USING delta TBLPROPERTIES ('delta.universalFormat.enabledFormats' = 'iceberg')",
     "DELTA_UNIVERSAL_FORMAT_VIOLATION"),
    ("CREATE TABLE {t} (id INT) USING delta TBLPROPERTIES ('delta.enableIcebergCompatV1' = 'true', "
     "'delta.enableIcebergCompatV2' = 'true')", "DELTA_ICEBERG_COMPAT_VIOLATION.VERSION_MUTUAL_EXCLUSIVE"),
    ("CREATE TABLE {t} (id INT) USING delta TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', "
     "'delta.enableDeletionVectors' = 'true')", "DELTA_ICEBERG_COMPAT_VIOLATION.DELETION_VECTORS_SHOULD_BE_DISABLED"),
    ("CREATE TABLE {t} (id INT, a ARRAY<INT>) USING delta TBLPROPERTIES ('delta.enableIcebergCompatV1' = 'true')",
     "DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_DATA_TYPE"),
    ("CREATE TABLE {t} (id INT) USING delta TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', "
     "'delta.columnMapping.mode' = 'none')", "DELTA_ICEBERG_COMPAT_VIOLATION.WRONG_REQUIRED_TABLE_PROPERTY"),
    ("CREATE TABLE {t} (id INT) USING delta TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true', "
     "'delta.universalFormat.enabledFormats' = 'iceberg,hudi')", "delta.universalFormat.enabledFormats"),
])
def test_refused_by_name(spark, tmp_path, ddl, error):
    path = tmp_path / "t"
    with pytest.raises(Exception) as e:
        spark.sql(ddl.format(t=f"delta.`{path}`"))
    assert condition(e.value) == error or error in str(e.value), condition(e.value)
    assert not os.path.exists(path / "_delta_log" / f"{0:020d}.json"), "nothing was committed"


@pytest.mark.full
def test_turned_on_for_an_existing_table(spark, tmp_path):
    """ALTER turns UniForm on for a table that maps columns by name, files and all, as the reference lets it;
    one that does not map columns is refused, named, and REORG … UPGRADE UNIFORM is the way there."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING delta PARTITIONED BY (p) "
              "TBLPROPERTIES ('delta.columnMapping.mode' = 'name')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"ALTER TABLE {t} SET TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"INSERT INTO {t} VALUES (3, 'a')")
    assert_iceberg_reads_as_silt(spark, path, "ALTER on a table with files")
    plain = tmp_path / "plain"
    spark.sql(f"CREATE TABLE delta.`{plain}` (id BIGINT) USING delta")
    with pytest.raises(Exception) as e:
        spark.sql(f"ALTER TABLE delta.`{plain}` SET TBLPROPERTIES ({UNIFORM})")
    assert condition(e.value) == "DELTA_ICEBERG_COMPAT_VIOLATION.WRONG_REQUIRED_TABLE_PROPERTY"
    assert "delta.columnMapping.mode" in str(e.value)


@pytest.mark.full
def test_reorg_upgrades_a_table_to_uniform(spark, tmp_path):
    """REORG … APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2)) on a table without column mapping, with
    deletion vectors: Delta Lake's three commits, every file rewritten under the feature, Iceberg readers agree."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, v STRING, p INT) USING delta PARTITIONED BY (p) "
              "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    spark.sql(f"INSERT INTO {t} SELECT id, concat('v', id), CAST(id % 2 AS INT) FROM range(20)")
    spark.sql(f"DELETE FROM {t} WHERE id % 3 = 0")
    want, columns = silt_rows(spark, path)
    spark.sql(f"REORG TABLE {t} APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2))")
    assert silt_rows(spark, path)[0] == want
    assert_iceberg_reads_as_silt(spark, path, "REORG UPGRADE UNIFORM")
    history = [r["operation"] for r in spark.sql(f"DESCRIBE HISTORY {t}").collect()][:3]
    assert history == ["SET TBLPROPERTIES", "REORG", "REORG TABLE UPGRADE UNIFORM"]
    props = spark.sql(f"DESCRIBE DETAIL {t}").collect()[0]["properties"]
    assert props["delta.enableIcebergCompatV2"] == "true" and props["delta.enableDeletionVectors"] == "false"
    assert props["delta.columnMapping.mode"] == "name" and props["delta.universalFormat.enabledFormats"] == "iceberg"
    last = max(int(os.path.basename(f).split(".")[0]) for f in glob.glob(str(path / "_delta_log" / "*.json")))
    adds = {}
    for v in range(last + 1):
        for line in open(path / "_delta_log" / f"{v:020d}.json"):
            a = json.loads(line)
            if "add" in a:
                adds[a["add"]["path"]] = a["add"]
            if "remove" in a:
                adds.pop(a["remove"]["path"], None)
    assert adds and all(a.get("tags") == {"ICEBERG_COMPAT_VERSION": "2"} and not a.get("deletionVector")
                        for a in adds.values())


@pytest.mark.full
def test_turning_compat_off_turns_uniform_off(spark, tmp_path):
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"ALTER TABLE {t} UNSET TBLPROPERTIES ('delta.enableIcebergCompatV2')")
    props = spark.sql(f"DESCRIBE DETAIL {t}").collect()[0]["properties"]
    assert "delta.universalFormat.enabledFormats" not in props
    converted = len(metadata_files(path))
    spark.sql(f"INSERT INTO {t} VALUES (1)")
    assert len(metadata_files(path)) == converted, "no Iceberg metadata after UniForm is off"


@pytest.mark.full
@needs_spark_4("widening of int to bigint in its Parquet reader")
def test_type_changes_iceberg_cannot_read_are_refused(spark, tmp_path):
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (i INT, d DECIMAL(5, 2)) USING delta TBLPROPERTIES ({UNIFORM}, "
              "'delta.enableTypeWidening' = 'true')")
    spark.sql(f"INSERT INTO {t} VALUES (1, 1.5)")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN i TYPE BIGINT")
    spark.sql(f"ALTER TABLE {t} ALTER COLUMN d TYPE DECIMAL(9, 2)")
    assert_iceberg_reads_as_silt(spark, path, "widening Iceberg allows")
    with pytest.raises(Exception) as e:
        spark.sql(f"ALTER TABLE {t} ALTER COLUMN d TYPE DECIMAL(12, 4)")
    assert condition(e.value) == "DELTA_ICEBERG_COMPAT_VIOLATION.UNSUPPORTED_TYPE_WIDENING"


@pytest.mark.full
def test_vacuum_keeps_the_iceberg_metadata(spark, tmp_path):
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM})")
    for i in range(3):
        spark.sql(f"INSERT INTO {t} VALUES ({i})")
    spark.sql(f"DELETE FROM {t} WHERE id = 0")
    before = sorted(os.listdir(path / "metadata"))
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM {t} RETAIN 0 HOURS")
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")
    # VACUUM's own commits are converted too: what was there stays
    assert set(before) <= set(os.listdir(path / "metadata"))
    assert_iceberg_reads_as_silt(spark, path, "VACUUM")


@pytest.mark.full
def test_delta_readers_still_read_it_as_delta(spark, tmp_path):
    """delta-rs reads a UniForm table Silt wrote as the same Delta table (the reference: test_interop_features)."""
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT, p STRING) USING delta PARTITIONED BY (p) TBLPROPERTIES ({UNIFORM})")
    spark.sql(f"INSERT INTO {t} SELECT id, CAST(id % 2 AS STRING) FROM range(10)")
    want, columns = silt_rows(spark, path)
    # through its DataFusion scan: its pyarrow reader returns nulls for a column-mapped file with field ids,
    # the reference Delta Lake's as well
    theirs = pa.table(QueryBuilder().register("t", DeltaTable(str(path))).execute("SELECT * FROM t").read_all())
    assert rendered(theirs, columns) == want


@pytest.mark.full
def test_expired_snapshots_and_their_files_go(spark, tmp_path):
    """Snapshots older than min(log retention, deleted-file retention) expire (Delta Lake's limit), with the
    manifest lists and manifests only they named; the current snapshot and what it names stay."""
    path = tmp_path / "t"
    t = f"delta.`{path}`"
    spark.sql(f"CREATE TABLE {t} (id BIGINT) USING delta TBLPROPERTIES ({UNIFORM}, "
              "'delta.logRetentionDuration' = 'interval 0 seconds', "
              "'delta.deletedFileRetentionDuration' = 'interval 0 seconds')")
    for i in range(4):
        spark.sql(f"INSERT INTO {t} VALUES ({i})")
    spark.sql(f"DELETE FROM {t} WHERE id = 1")
    metadata = iceberg_table(path).metadata
    assert [s.summary["delta-version"] for s in metadata.snapshots] == ["5"]
    lists = glob.glob(str(path / "metadata" / "snap-*.avro"))
    assert [os.path.basename(f) for f in lists] == [os.path.basename(metadata.snapshots[0].manifest_list)]
    named = {os.path.basename(m.manifest_path) for m in iceberg_table(path).current_snapshot().manifests(
        iceberg_table(path).io)}
    on_disk = {os.path.basename(f) for f in glob.glob(str(path / "metadata" / "*-m*.avro"))}
    assert on_disk == named
    assert_iceberg_reads_as_silt(spark, path, "expiry")


@pytest.mark.full
def test_a_uniform_table_the_reference_wrote_is_continued(spark, tmp_path):
    """The reference Delta Lake creates a UniForm table on a path (it writes no Iceberg metadata there: since
    delta-spark 4.2 only Unity Catalog tables get it) and writes to it, with REORG … UPGRADE UNIFORM on a second;
    Silt writes to both, Iceberg readers read Silt's metadata of all their rows, and the reference reads Silt's
    commits. (The reference's Iceberg module, io.delta:delta-iceberg, which converted tables outside Unity Catalog
    before delta-spark 4.2, is not served by this machine's Maven mirror: maven-metadata.xml 404 on 2026-12-02.)"""
    from test_interop import run_reference
    made, upgraded = str(tmp_path / "made"), str(tmp_path / "upgraded")
    statements = [
        f"CREATE TABLE delta.`{made}` (id BIGINT, v STRING, p INT) USING delta PARTITIONED BY (p) "
        f"TBLPROPERTIES ({UNIFORM})",
        f"INSERT INTO delta.`{made}` SELECT id, concat('r', id), CAST(id % 3 AS INT) FROM range(20)",
        f"DELETE FROM delta.`{made}` WHERE id = 4",
        f"CREATE TABLE delta.`{upgraded}` (id BIGINT, v STRING) USING delta "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
        f"INSERT INTO delta.`{upgraded}` SELECT id, concat('r', id) FROM range(10)",
        f"DELETE FROM delta.`{upgraded}` WHERE id = 3",
        f"REORG TABLE delta.`{upgraded}` APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2))",
    ]
    [res] = run_reference([{"op": "sql", "statements": statements}])
    assert res["ok"], res.get("error")
    for path in (made, upgraded):
        assert not os.path.exists(os.path.join(path, "metadata")), "the reference wrote Iceberg metadata on a path"
        spark.sql(f"INSERT INTO delta.`{path}` (id, v) VALUES (1000, 'silt')")
        spark.sql(f"UPDATE delta.`{path}` SET v = 'u' WHERE id = 1")
        assert_iceberg_reads_as_silt(spark, path, "Silt's commits to the reference's table")
    reads = run_reference([{"op": "read", "path": p} for p in (made, upgraded)])
    for path, r in zip((made, upgraded), reads):
        assert r["ok"], r.get("error")
        want, columns = silt_rows(spark, path)
        assert r["columns"] == columns
        assert sorted(load_canon().canonical_json(x) for x in r["rows"]) == want
