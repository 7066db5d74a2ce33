"""Delta's table features as one registry: the README's table is the engine's list; VARIANT columns
declared in the protocol and written from SQL and DataFrames; features Silt does not implement refused
by name, for write or for read as the protocol says; in-commit timestamps, column defaults, generated
columns. Type widening: test_type_widening.py."""
import json
import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest

import silt
from test_writes import raises_silt
from conftest import needs_spark_4

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "reference"


def log_lines(path, version):
    with open(Path(path) / "_delta_log" / f"{version:020d}.json") as f:
        return [json.loads(line) for line in f if line.strip()]


def protocol_of(path):
    protocols = [a["protocol"] for v in sorted(Path(path, "_delta_log").glob("*.json"))
                 for a in log_lines(path, int(v.stem)) if "protocol" in a]
    return protocols[-1]


def append_commit(path, actions):
    """Writes the next commit by hand (a table as another writer left it)."""
    n = len(list(Path(path, "_delta_log").glob("*.json")))
    with open(Path(path) / "_delta_log" / f"{n:020d}.json", "w") as f:
        f.write("\n".join(json.dumps(a) for a in actions) + "\n")


def fixture(name, tmp_path):
    dst = tmp_path / name
    shutil.copytree(FIXTURES / name, dst)
    return str(dst)


# ---------------------------------------------------------------- the registry and the README

def registry(spark):
    fs = spark._jvm.io.silt.features.TableFeatures.all()
    out = {}
    for i in range(fs.size()):
        f = fs.apply(i)
        s = f.support()
        kind = "reader and writer" if f.isReaderWriter() else "writer"
        status = "read, write" if s.writes() else ("read" if s.reads() else "refused")
        out[f.name()] = (kind, status)
    return out


def readme_features():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Table features", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `([\w-]+)` \| ([^|]+) \| ([^|]+) \|", section, re.M)
    return {name: (kind.strip(), status.strip()) for name, kind, status in rows}


def test_readme_lists_every_delta_feature_as_the_engine_treats_it(spark):
    engine = registry(spark)
    assert len(engine) >= 32  # every feature of Delta 4.4
    readme = readme_features()
    if spark.version.startswith("3."):  # the README's table is Spark 4's; Spark 3.5 has no VARIANT type
        readme.update({f: (readme[f][0], "refused") for f in ("variantType", "variantType-preview")})
    assert readme == engine


# ---------------------------------------------------------------- VARIANT

@pytest.mark.smoke  # on every Spark minor: the APIs these use differ between minors
@needs_spark_4("VARIANT type")
def test_variant_columns_are_declared_and_written_from_sql_and_dataframes(spark, tmp_path):
    p = str(tmp_path / "v")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, j VARIANT) USING silt")
    proto = protocol_of(p)
    assert (proto["minReaderVersion"], proto["minWriterVersion"]) == (3, 7)
    assert "variantType" in proto["readerFeatures"] and "variantType" in proto["writerFeatures"]
    spark.sql(f"INSERT INTO silt.`{p}` SELECT 1, parse_json('{{\"a\": 1}}') UNION ALL SELECT 2, NULL")
    spark.range(3, 5).selectExpr("CAST(id AS INT) id", "parse_json('[1, 2]') j").write.format("silt") \
        .mode("append").save(p)
    got = spark.read.format("silt").load(p).selectExpr("id", "to_json(j)", "variant_get(j, '$.a', 'int')")
    assert sorted(tuple(r) for r in got.collect()) == [(1, '{"a":1}', 1), (2, None, None), (3, "[1,2]", None),
                                                        (4, "[1,2]", None)]
    # a null count for the variant, never min/max (Delta's rule: variants have no order)
    stats = [json.loads(a["add"]["stats"]) for v in (1, 2) for a in log_lines(p, v) if "add" in a]
    assert all("j" not in s["minValues"] and "j" not in s["maxValues"] and "j" in s["nullCount"] for s in stats)


@needs_spark_4("VARIANT type")
def test_a_variant_column_added_later_upgrades_the_protocol(spark, tmp_path):
    p = str(tmp_path / "later")
    spark.range(2).write.format("silt").save(p)
    assert protocol_of(p) == {"minReaderVersion": 1, "minWriterVersion": 2}
    spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMN j VARIANT")
    assert "variantType" in protocol_of(p)["readerFeatures"]
    q = str(tmp_path / "evolved")
    spark.range(2).write.format("silt").save(q)
    spark.range(2).selectExpr("id", "parse_json('true') j").write.format("silt").mode("append") \
        .option("mergeSchema", "true").save(q)
    assert "variantType" in protocol_of(q)["readerFeatures"]
    assert spark.read.format("silt").load(q).where("j IS NOT NULL").count() == 2


@pytest.mark.skipif(__import__("pyspark").__version__.startswith("4.0."),
                    reason="Spark 4.0's Parquet library cannot read the VARIANT annotation newer Sparks write")
@needs_spark_4("VARIANT type")
def test_reads_and_continues_the_reference_engines_variant_table(spark, tmp_path):
    p = fixture("variant", tmp_path)
    spark.sql(f"INSERT INTO silt.`{p}` SELECT 4, parse_json('\"s\"')")
    got = spark.read.format("silt").load(p).selectExpr("id", "to_json(j)").orderBy("id").collect()
    assert [tuple(r) for r in got] == [(1, '{"a":1,"b":[true,null]}'), (2, '[1,2.5,"x"]'), (3, None), (4, '"s"')]


# ---------------------------------------------------------------- refused by name

def test_features_silt_does_not_write_are_refused_naming_the_feature_and_why(spark, tmp_path):
    p = str(tmp_path / "ic")
    spark.range(3).write.format("silt").save(p)
    append_commit(p, [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 7,
                                    "writerFeatures": ["icebergCompatV3", "columnMapping", "appendOnly", "invariants"]}}])
    assert spark.read.format("silt").load(p).count() == 3  # a writer-only feature: reads go on
    msg = raises_silt(silt.UnsupportedTableFeatureException,
                      lambda: spark.range(1).write.format("silt").mode("append").save(p))
    assert "icebergCompatV3" in msg and "Iceberg" in msg
    for name in ["coordinatedCommits-preview", "variantShredding", "icebergCompatV3", "catalogManaged"]:
        q = str(tmp_path / f"new_{name}")
        msg = raises_silt(silt.UnsupportedTableFeatureException, lambda: spark.sql(
            f"CREATE TABLE silt.`{q}` (id INT) USING silt TBLPROPERTIES ('delta.feature.{name}' = 'supported')"))
        assert name in msg
        assert not Path(q, "_delta_log").exists()


@pytest.mark.parametrize("feature", ["catalogManaged", "variantShredding", "geospatial", "someFutureFeature"])
def test_reader_features_silt_does_not_read_are_refused_on_read(spark, tmp_path, feature):
    p = str(tmp_path / "t")
    spark.range(3).write.format("silt").save(p)
    append_commit(p, [{"protocol": {"minReaderVersion": 3, "minWriterVersion": 7, "readerFeatures": [feature],
                                    "writerFeatures": [feature]}}])
    msg = raises_silt(silt.UnsupportedTableFeatureException, lambda: spark.read.format("silt").load(p).count())
    assert feature in msg
    msg = raises_silt(silt.UnsupportedTableFeatureException,
                      lambda: spark.range(1).write.format("silt").mode("append").save(p))
    assert feature in msg and len(list(Path(p, "_delta_log").glob("*.json"))) == 2


@pytest.mark.parametrize("protected", [True, False])
def test_checkpoint_protection_keeps_the_protected_history(spark, tmp_path, protected):
    """A table left with checkpointProtection (by another engine's DROP FEATURE) is written, and
    metadata cleanup deletes the history before the protected version only all at once."""
    p = str(tmp_path / "cp")
    spark.range(1).write.format("silt").save(p)
    meta = [a for a in log_lines(p, 0) if "metaData" in a][0]["metaData"]
    meta["configuration"] = {"delta.logRetentionDuration": "interval 0 seconds", "delta.checkpointInterval": "2"}
    features = ["appendOnly", "invariants"]
    if protected:
        meta["configuration"]["delta.requireCheckpointProtectionBeforeVersion"] = "3"
        features.append("checkpointProtection")
    append_commit(p, [{"protocol": {"minReaderVersion": 1, "minWriterVersion": 7, "writerFeatures": features}},
                      {"metaData": meta}])
    spark.range(1).write.format("silt").mode("append").save(p)  # version 2: a checkpoint, then cleanup
    assert Path(p, "_delta_log", f"{0:020d}.json").exists() == protected
    for _ in range(2):  # version 4: cleanup may cut past the protected version, all of the history before it at once
        spark.range(1).write.format("silt").mode("append").save(p)
    assert sorted(int(f.name[:20]) for f in Path(p, "_delta_log").glob("*.json")) == [4]
    assert spark.read.format("silt").load(p).count() == 4


# ---------------------------------------------------------------- in-commit timestamps

def commit_infos(path):
    """Each commit's first action (which must be its commitInfo), oldest first."""
    return [log_lines(path, int(v.stem))[0].get("commitInfo") for v in sorted(Path(path, "_delta_log").glob("*.json"))]


def as_text(ms):
    """Epoch milliseconds as a timestamp string in the tests' session time zone (UTC)."""
    return datetime.utcfromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def set_file_times(path, versions, ms):
    """Gives commit files another modification time, so that a reader of file times would be wrong."""
    import os
    for v in versions:
        os.utime(Path(path) / "_delta_log" / f"{v:020d}.json", (ms / 1000, ms / 1000))


@pytest.fixture
def clock(spark):
    """Moves this JVM's commit clock (as a machine whose clock was set back would); restored after."""
    c = spark._jvm.io.silt.txn.CommitClock
    yield c
    c.setOffsetForTests(0)


@pytest.mark.smoke  # on every Spark minor: the APIs these use differ between minors
def test_in_commit_timestamps_increase_even_when_the_clock_goes_back(spark, tmp_path, clock):
    p = str(tmp_path / "ict")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableInCommitTimestamps = true)")
    # as the reference gives a new table: the feature, and those its default protocol (1, 2) implies
    assert protocol_of(p) == {"minReaderVersion": 1, "minWriterVersion": 7,
                              "writerFeatures": ["appendOnly", "inCommitTimestamp", "invariants"]}
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    clock.setOffsetForTests(-86_400_000)  # a day behind
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3)")
    clock.setOffsetForTests(0)
    infos = commit_infos(p)
    ict = [i["inCommitTimestamp"] for i in infos]
    assert all(a < b for a, b in zip(ict, ict[1:])) and ict[2] == ict[1] + 1 and ict[3] == ict[2] + 1
    assert [i["timestamp"] for i in infos] == ict  # as Delta writes it
    assert "delta.inCommitTimestampEnablementVersion" not in spark.sql(f"SHOW TBLPROPERTIES silt.`{p}`") \
        .toPandas()["key"].tolist()  # on since version 0: nothing to record
    # readers use them, not the files' times
    set_file_times(p, range(4), 946_684_800_000)  # 2000-01-01
    history = spark.sql(f"DESCRIBE HISTORY silt.`{p}`").select("version", "timestamp").collect()
    assert {r.version: round((r.timestamp - datetime(1970, 1, 1)).total_seconds() * 1000) for r in history} == \
        dict(enumerate(ict))
    for v in range(4):
        got = spark.read.format("silt").option("timestampAsOf", as_text(ict[v])).load(p)
        assert got.count() == v


def test_a_commit_retried_after_a_concurrent_one_is_stamped_after_it(spark, tmp_path, clock):
    """The first append is held at its commit while a second commits (its clock a day ahead); the
    first then commits on top, stamped after the second, though its own clock is behind."""
    from conftest import concurrently
    p = str(tmp_path / "race")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableInCommitTimestamps = true)")

    def ahead():
        clock.setOffsetForTests(86_400_000)
        spark.sql(f"INSERT INTO silt.`{p}` VALUES (2)")
        clock.setOffsetForTests(0)
    assert concurrently(spark, p, lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)"), ahead) is None
    ict = [i["inCommitTimestamp"] for i in commit_infos(p)]
    assert ict[2] == ict[1] + 1 and ict[1] > ict[0] + 86_000_000
    assert spark.read.format("silt").load(p).count() == 2


def test_turning_them_on_races_an_append_and_records_the_version_it_lands_at(spark, tmp_path):
    from conftest import concurrently
    p = str(tmp_path / "enable")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt")
    err = concurrently(spark, p,
                       lambda: spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.enableInCommitTimestamps = true)"),
                       lambda: spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)"))
    # a property change does not conflict with a blind append: it commits on top, at version 2, not
    # the 1 it read, and records that version
    assert err is None
    infos = commit_infos(p)
    props = dict(spark.sql(f"SHOW TBLPROPERTIES silt.`{p}`").collect())
    assert "inCommitTimestamp" not in infos[1] and "inCommitTimestamp" in infos[2]
    assert props["delta.inCommitTimestampEnablementVersion"] == "2"
    assert props["delta.inCommitTimestampEnablementTimestamp"] == str(infos[2]["inCommitTimestamp"])


def test_turning_in_commit_timestamps_on_records_where_they_begin(spark, tmp_path, setting):
    # the commits are dated 2000 by their files' times: time travel past the retention is this test's
    setting("spark.silt.timeTravel.retentionCheck.enabled", "false")
    p = str(tmp_path / "later")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    spark.sql(f"ALTER TABLE silt.`{p}` SET TBLPROPERTIES (delta.enableInCommitTimestamps = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2)")
    infos = commit_infos(p)
    assert "inCommitTimestamp" not in infos[0] and "inCommitTimestamp" not in infos[1]
    props = dict(spark.sql(f"SHOW TBLPROPERTIES silt.`{p}`").collect())
    assert props["delta.inCommitTimestampEnablementVersion"] == "2"
    assert props["delta.inCommitTimestampEnablementTimestamp"] == str(infos[2]["inCommitTimestamp"])
    assert "inCommitTimestamp" in protocol_of(p)["writerFeatures"]
    # commits before it keep their files' times; from it on, the in-commit ones
    set_file_times(p, [0, 1], 946_684_800_000)
    set_file_times(p, [2, 3], 978_307_200_000)  # 2001: wrong for commits 2 and 3
    assert spark.read.format("silt").option("timestampAsOf", "2000-06-01 00:00:00").load(p).count() == 1
    assert spark.read.format("silt").option("timestampAsOf", as_text(infos[3]["inCommitTimestamp"])).load(p) \
        .count() == 2
    feed = spark.read.format("silt").option("readChangeFeed", "true").option("startingVersion", 0).load(p)
    stamps = {r._commit_version: r._commit_timestamp for r in feed.collect()}
    assert round((stamps[3] - datetime(1970, 1, 1)).total_seconds() * 1000) == infos[3]["inCommitTimestamp"]
    assert stamps[1] == datetime(2000, 1, 1, 0, 0, 0, 1000)  # its file time (made one ms after commit 0's)


@pytest.mark.parametrize("damage,error_class", [("timestamp", "DELTA_MISSING_COMMIT_TIMESTAMP"),
                                                 ("commit_info", "DELTA_MISSING_COMMIT_INFO")])
def test_a_commit_without_its_in_commit_timestamp_is_an_error_not_a_file_time(spark, tmp_path, damage, error_class):
    """As the reference does (checked by running it): history and timestamp time travel refuse a commit
    made under in-commit timestamps that lacks its commitInfo or timestamp; reading the latest version,
    which needs no time, works."""
    p = str(tmp_path / damage)
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT) USING silt TBLPROPERTIES (delta.enableInCommitTimestamps = true)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (1)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2)")
    commit = Path(p) / "_delta_log" / f"{1:020d}.json"
    lines = commit.read_text().splitlines()
    if damage == "timestamp":
        info = json.loads(lines[0])
        del info["commitInfo"]["inCommitTimestamp"]
        lines[0] = json.dumps(info)
    else:
        lines = lines[1:]
    commit.write_text("\n".join(lines) + "\n")
    spark._jvm.io.silt.log.TableLog.forget(spark._jsparkSession, p)
    for statement in (lambda: spark.sql(f"DESCRIBE HISTORY silt.`{p}`").collect(),
                      lambda: spark.read.format("silt").option("timestampAsOf", "2000-01-01").load(p).count()):
        with pytest.raises(silt.CorruptLogException) as info:
            statement()
        assert info.value.getCondition() == error_class and f"{1:020d}.json" in str(info.value)
    assert spark.read.format("silt").load(p).count() == 2


# ---------------------------------------------------------------- column defaults

@pytest.mark.smoke  # on every Spark minor: the APIs these use differ between minors
def test_column_defaults_fill_every_kind_of_write(spark, tmp_path):
    p = str(tmp_path / "orders")
    spark.sql(f"CREATE TABLE silt.`{p}` (id INT, status STRING DEFAULT 'new', qty INT DEFAULT 1 + 1) USING silt")
    assert protocol_of(p) == {"minReaderVersion": 1, "minWriterVersion": 7,
                              "writerFeatures": ["allowColumnDefaults", "appendOnly", "invariants"]}
    schema = json.loads([a for a in log_lines(p, 0) if "metaData" in a][0]["metaData"]["schemaString"])
    assert [f["metadata"] for f in schema["fields"]] == [{}, {"CURRENT_DEFAULT": "'new'"}, {"CURRENT_DEFAULT": "1 + 1"}]
    spark.sql(f"INSERT INTO silt.`{p}` (id) VALUES (1)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2, DEFAULT, 5)")
    spark.createDataFrame([(3,)], "id INT").write.format("silt").mode("append").save(p)
    spark.sql(f"UPDATE silt.`{p}` SET qty = DEFAULT WHERE id = 2")
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 4 AS id) s ON t.id = s.id "
              "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN status SET DEFAULT 'open'")
    spark.sql(f"ALTER TABLE silt.`{p}` ALTER COLUMN qty DROP DEFAULT")
    spark.sql(f"INSERT INTO silt.`{p}` (id) VALUES (5)")
    assert sorted(tuple(r) for r in spark.read.format("silt").load(p).collect()) == [
        (1, "new", 2), (2, "new", 2), (3, "new", 2), (4, "new", 2), (5, "open", None)]
    version = len(list(Path(p, "_delta_log").glob("*.json")))
    msg = raises_silt(silt.InvalidTableOperationException,
                      lambda: spark.sql(f"ALTER TABLE silt.`{p}` ADD COLUMN z INT DEFAULT 3"))
    assert "DEFAULT" in msg and len(list(Path(p, "_delta_log").glob("*.json"))) == version


# ---------------------------------------------------------------- generated columns

GENERATED = "(id INT, ts TIMESTAMP, d DATE GENERATED ALWAYS AS (CAST(ts AS DATE)), y INT GENERATED ALWAYS AS (year(ts)))"


@pytest.mark.smoke  # on every Spark minor: the APIs these use differ between minors
def test_generated_columns_are_computed_and_checked_on_every_write(spark, tmp_path):
    p = str(tmp_path / "events")
    spark.sql(f"CREATE TABLE silt.`{p}` {GENERATED} USING silt PARTITIONED BY (d)")
    schema = json.loads([a for a in log_lines(p, 0) if "metaData" in a][0]["metaData"]["schemaString"])
    assert [f["metadata"].get("delta.generationExpression") for f in schema["fields"]] == \
        [None, None, "CAST(ts AS DATE)", "year(ts)"]
    # as the reference gives a new table: table features, not the legacy writer 4 that implies generatedColumns
    assert protocol_of(p) == {"minReaderVersion": 1, "minWriterVersion": 7,
                              "writerFeatures": ["appendOnly", "generatedColumns", "invariants"]}
    spark.sql(f"INSERT INTO silt.`{p}` (id, ts) VALUES (1, TIMESTAMP'2024-01-05 10:00:00')")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (2, TIMESTAMP'2024-02-05 10:00:00', DATE'2024-02-05', 2024)")
    spark.sql("SELECT 3 AS id, TIMESTAMP'2025-03-01 00:00:00' AS ts").write.format("silt").mode("append").save(p)
    spark.sql(f"UPDATE silt.`{p}` SET ts = TIMESTAMP'2023-07-07 07:00:00' WHERE id = 1")
    spark.sql(f"MERGE INTO silt.`{p}` t USING (SELECT 2 AS id, TIMESTAMP'2021-01-01 00:00:00' AS ts UNION ALL "
              "SELECT 4, TIMESTAMP'2022-01-01 00:00:00') s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET ts = s.ts WHEN NOT MATCHED THEN INSERT (id, ts) VALUES (s.id, s.ts)")
    rows = lambda: sorted((r.id, r.ts.year, str(r.d), r.y) for r in spark.read.format("silt").load(p).collect())
    expected = [(1, 2023, "2023-07-07", 2023), (2, 2021, "2021-01-01", 2021), (3, 2025, "2025-03-01", 2025),
                (4, 2022, "2022-01-01", 2022)]
    assert rows() == expected
    version = len(list(Path(p, "_delta_log").glob("*.json")))
    for bad in [f"INSERT INTO silt.`{p}` VALUES (5, TIMESTAMP'2024-02-05 10:00:00', DATE'2024-02-06', 2024)",
                f"INSERT INTO silt.`{p}` VALUES (5, TIMESTAMP'2024-02-05 10:00:00', NULL, 2024)",
                f"UPDATE silt.`{p}` SET d = DATE'2000-01-01' WHERE id = 1"]:
        msg = raises_silt(silt.ConstraintViolationException, lambda: spark.sql(bad))
        assert "generated column d (GENERATED ALWAYS AS (CAST(ts AS DATE)))" in msg
    assert rows() == expected and len(list(Path(p, "_delta_log").glob("*.json"))) == version


def test_generated_columns_on_other_providers_are_refused_not_dropped(spark, tmp_path):
    # Spark refuses it for other providers before the catalog is asked
    with pytest.raises(Exception, match="(?i)generated columns"):
        spark.sql(f"CREATE TABLE gen_parquet (a INT, b INT GENERATED ALWAYS AS (a + 1)) USING parquet "
                  f"LOCATION '{tmp_path / 'gp'}'")
    assert not spark.catalog.tableExists("gen_parquet")
