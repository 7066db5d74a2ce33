"""Table features both ways with the reference Delta Lake: Silt's VARIANT and widened tables read by
the reference with the rows Silt reads, and continued by it; the reference's own tables read and
continued by Silt, then read back by the reference."""
import pytest

import silt.errors

from test_interop import run_reference

pytestmark = pytest.mark.full  # second tier: make test-full

VARIANT_ROWS = "SELECT id, to_json(j) FROM {t} ORDER BY id"
WIDE_ROWS = "SELECT b, i, f, d, dec, s.x, k FROM {t} ORDER BY b"


def silt_rows(spark, sql, path):
    return [[None if v is None else str(v) for v in r] for r in spark.sql(sql.format(t=f"silt.`{path}`")).collect()]


def test_variant_and_widened_tables_round_trip(spark, tmp_path):
    sv, sw = str(tmp_path / "silt_variant"), str(tmp_path / "silt_wide")
    rv, rw = str(tmp_path / "ref_variant"), str(tmp_path / "ref_wide")
    # Silt writes its two tables
    spark.sql(f"CREATE TABLE silt.`{sv}` (id INT, j VARIANT) USING silt")
    spark.sql(f"INSERT INTO silt.`{sv}` SELECT 1, parse_json('{{\"a\": [1, null]}}') UNION ALL SELECT 2, NULL")
    spark.sql(f"CREATE TABLE silt.`{sw}` (b TINYINT, i INT, f FLOAT, d DATE, dec DECIMAL(6,2), s STRUCT<x: SMALLINT>, "
              "k INT) USING silt TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{sw}` VALUES (1, 100, 0.1, DATE'2024-01-05', 12.34, named_struct('x', 7S), 1)")
    for c, typ in [("b", "INT"), ("i", "BIGINT"), ("f", "DOUBLE"), ("d", "TIMESTAMP_NTZ"), ("dec", "DECIMAL(10,4)"),
                   ("s.x", "BIGINT"), ("k", "DECIMAL(12,2)")]:
        spark.sql(f"ALTER TABLE silt.`{sw}` ALTER COLUMN {c} TYPE {typ}")
    spark.sql(f"INSERT INTO silt.`{sw}` VALUES (300, 5000000000, 0.2, TIMESTAMP_NTZ'2024-02-01 10:00:00', "
              "123456.7891, named_struct('x', 9000000000), 5)")
    silt_before = silt_rows(spark, VARIANT_ROWS, sv), silt_rows(spark, WIDE_ROWS, sw)

    # the reference reads them, continues them, and writes its own
    q = lambda sql, p: {"op": "query", "sql": sql.format(t=f"delta.`{p}`")}
    results = run_reference([
        q(VARIANT_ROWS, sv), q(WIDE_ROWS, sw),
        {"op": "sql", "statements": [
            f"INSERT INTO delta.`{sv}` SELECT 3, parse_json('\"r\"')",
            f"INSERT INTO delta.`{sw}` VALUES (2, 2, 0.5, TIMESTAMP_NTZ'2024-03-01 00:00:00', 1.5, named_struct('x', 2), 2)",
            f"CREATE TABLE delta.`{rv}` (id INT, j VARIANT) USING delta",
            f"INSERT INTO delta.`{rv}` SELECT 1, parse_json('{{\"k\": {{\"n\": 1}}}}')",
            f"CREATE TABLE delta.`{rw}` (i INT, f FLOAT) USING delta TBLPROPERTIES (delta.enableTypeWidening = true)",
            f"INSERT INTO delta.`{rw}` VALUES (1, 0.1)",
            f"ALTER TABLE delta.`{rw}` ALTER COLUMN i TYPE BIGINT",
            f"ALTER TABLE delta.`{rw}` ALTER COLUMN f TYPE DOUBLE"]},
    ])
    assert all(r.get("ok", True) for r in results), results
    assert (results[0]["rows"], results[1]["rows"]) == silt_before

    # Silt reads what the reference added and continues the reference's tables
    assert silt_rows(spark, VARIANT_ROWS, sv)[-1] == ["3", '"r"']
    assert silt_rows(spark, "SELECT b, i FROM {t} ORDER BY b", sw) == [["1", "100"], ["2", "2"], ["300", "5000000000"]]
    spark.sql(f"INSERT INTO silt.`{rv}` SELECT 2, parse_json('[true]')")
    spark.sql(f"INSERT INTO silt.`{rw}` VALUES (6000000000, 0.75)")
    spark.sql(f"ALTER TABLE silt.`{rw}` ALTER COLUMN i TYPE DECIMAL(22,2)")
    final = run_reference([q(VARIANT_ROWS, rv), q("SELECT i, f FROM {t} ORDER BY i", rw)])
    assert final[0]["rows"] == [["1", '{"k":{"n":1}}'], ["2", "[true]"]] == silt_rows(spark, VARIANT_ROWS, rv)
    assert final[1]["rows"] == [["1.00", "0.10000000149011612"], ["6000000000.00", "0.75"]] == \
        silt_rows(spark, "SELECT i, f FROM {t} ORDER BY i", rw)


def first_actions(path):
    import json
    from pathlib import Path
    out = []
    for f in sorted(Path(path, "_delta_log").glob("*.json")):
        out.append(json.loads(f.read_text().splitlines()[0]).get("commitInfo", {}))
    return out


def test_in_commit_timestamps_round_trip(spark, tmp_path):
    """The reference turns them on for its table; Silt continues it, stamping after the reference's
    commits; the reference time travels by Silt's stamps and Silt by the reference's."""
    from datetime import datetime
    p = str(tmp_path / "ict")
    run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{p}` (id INT) USING delta",
        f"INSERT INTO delta.`{p}` VALUES (1)",
        f"ALTER TABLE delta.`{p}` SET TBLPROPERTIES (delta.enableInCommitTimestamps = true)",
        f"INSERT INTO delta.`{p}` VALUES (2)"]}])
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (3)")
    spark.sql(f"INSERT INTO silt.`{p}` VALUES (4)")
    ict = [i.get("inCommitTimestamp") for i in first_actions(p)]
    assert ict[:2] == [None, None] and all(a < b for a, b in zip(ict[2:], ict[3:]))
    text = lambda ms: datetime.utcfromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    counts = run_reference([{"op": "query", "sql": f"SELECT count(*) FROM delta.`{p}` TIMESTAMP AS OF '{text(ict[v])}'"}
                            for v in (2, 3, 4, 5)])
    assert all("rows" in c for c in counts), counts
    assert [int(c["rows"][0][0]) for c in counts] == [1, 2, 3, 4]
    assert [spark.read.format("silt").option("timestampAsOf", text(ict[v])).load(p).count() for v in (2, 3, 4, 5)] \
        == [1, 2, 3, 4]
    history = run_reference([{"op": "history", "path": p}])[0]
    assert history["versions"] == list(range(6)) and history["timestamps"][2:] == ict[2:]


def test_column_defaults_round_trip(spark, tmp_path):
    """The reference fills Silt's defaults and Silt the reference's, with the same rows."""
    s, r = str(tmp_path / "silt_defaults"), str(tmp_path / "ref_defaults")
    spark.sql(f"CREATE TABLE silt.`{s}` (id INT, c STRING DEFAULT 'x') USING silt")
    spark.sql(f"INSERT INTO silt.`{s}` (id) VALUES (1)")
    rows = "SELECT id, c FROM {t} ORDER BY id"
    results = run_reference([
        {"op": "sql", "statements": [
            f"INSERT INTO delta.`{s}` (id) VALUES (2)",
            f"CREATE TABLE delta.`{r}` (id INT, c STRING DEFAULT 'y') USING delta "
            "TBLPROPERTIES ('delta.feature.allowColumnDefaults' = 'supported')",
            f"INSERT INTO delta.`{r}` (id) VALUES (1)"]}])
    assert all(x.get("ok", True) for x in results), results
    spark.sql(f"INSERT INTO silt.`{r}` (id) VALUES (2)")
    spark.sql(f"INSERT INTO silt.`{r}` VALUES (3, DEFAULT)")
    final = run_reference([{"op": "query", "sql": rows.format(t=f"delta.`{s}`")},
                           {"op": "query", "sql": rows.format(t=f"delta.`{r}`")}])
    assert final[0]["rows"] == [["1", "x"], ["2", "x"]] == silt_rows(spark, rows, s)
    assert final[1]["rows"] == [["1", "y"], ["2", "y"], ["3", "y"]] == silt_rows(spark, rows, r)


def test_generated_columns_round_trip(spark, tmp_path):
    """Each engine computes the other's generated columns, and refuses a wrong value."""
    s, r = str(tmp_path / "silt_gen"), str(tmp_path / "ref_gen")
    ddl = "(id INT, ts TIMESTAMP, d DATE GENERATED ALWAYS AS (CAST(ts AS DATE)))"
    spark.sql(f"CREATE TABLE silt.`{s}` {ddl} USING silt PARTITIONED BY (d)")
    spark.sql(f"INSERT INTO silt.`{s}` (id, ts) VALUES (1, TIMESTAMP'2024-01-05 10:00:00')")
    results = run_reference([
        {"op": "sql", "statements": [
            f"INSERT INTO delta.`{s}` (id, ts) VALUES (2, TIMESTAMP'2024-02-05 10:00:00')",
            f"CREATE TABLE delta.`{r}` {ddl} USING delta PARTITIONED BY (d)",
            f"INSERT INTO delta.`{r}` (id, ts) VALUES (1, TIMESTAMP'2024-03-05 10:00:00')"]},
        {"op": "sql", "statements": [f"INSERT INTO delta.`{s}` VALUES (3, TIMESTAMP'2024-02-05 10:00:00', "
                                     "DATE'2000-01-01')"]}])
    assert results[0].get("ok", True) and results[1].get("ok") is False  # the reference refuses the wrong value too
    spark.sql(f"INSERT INTO silt.`{r}` (id, ts) VALUES (2, TIMESTAMP'2024-04-05 10:00:00')")
    spark.sql(f"UPDATE silt.`{r}` SET ts = TIMESTAMP'2020-01-01 00:00:00' WHERE id = 1")
    rows = "SELECT id, CAST(d AS STRING) FROM {t} ORDER BY id"
    final = run_reference([{"op": "query", "sql": rows.format(t=f"delta.`{s}`")},
                           {"op": "query", "sql": rows.format(t=f"delta.`{r}`")}])
    assert final[0]["rows"] == [["1", "2024-01-05"], ["2", "2024-02-05"]] == silt_rows(spark, rows, s)
    assert final[1]["rows"] == [["1", "2020-01-01"], ["2", "2024-04-05"]] == silt_rows(spark, rows, r)


ROW_IDS = "SELECT id, v, _metadata.row_id, _metadata.row_commit_version FROM {t} ORDER BY id"


def test_row_tracking_round_trip(spark, tmp_path):
    """Each engine continues the other's row-tracking table with UPDATE, MERGE, DELETE and OPTIMIZE;
    each reads the ids the other gave, unchanged and updated rows keep theirs, new rows get fresh ones."""
    import deltalake
    ref, own = str(tmp_path / "ref_rt"), str(tmp_path / "silt_rt")
    q = lambda p: {"op": "query", "sql": ROW_IDS.format(t=f"delta.`{p}`")}
    first = run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{ref}` (id INT, v STRING) USING delta TBLPROPERTIES "
        "(delta.enableRowTracking = true, delta.enableDeletionVectors = true)",
        f"INSERT INTO delta.`{ref}` VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        f"INSERT INTO delta.`{ref}` VALUES (4, 'd')",
        f"UPDATE delta.`{ref}` SET v = 'B' WHERE id = 2"]}, q(ref)])
    assert first[0].get("ok", True), first
    assert silt_rows(spark, ROW_IDS, ref) == first[1]["rows"]

    # Silt continues the reference's table; the reference reads the ids Silt kept and gave
    before = {r[0]: r[2] for r in first[1]["rows"]}
    spark.sql(f"UPDATE silt.`{ref}` SET v = 'C' WHERE id = 3")
    spark.createDataFrame([(4, "D"), (5, "e")], "id INT, v STRING").createOrReplaceTempView("rt_src")
    spark.sql(f"MERGE INTO silt.`{ref}` t USING rt_src s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT *")
    spark.sql(f"DELETE FROM silt.`{ref}` WHERE id = 1")
    spark.sql(f"OPTIMIZE silt.`{ref}`")
    mine = silt_rows(spark, ROW_IDS, ref)
    theirs = run_reference([q(ref)])[0]["rows"]
    assert theirs == mine
    assert {r[0]: r[2] for r in theirs if r[0] != "5"} == {k: v for k, v in before.items() if k != "1"}
    assert int(next(r[2] for r in theirs if r[0] == "5")) > max(int(v) for v in before.values())

    # the reference continues Silt's table (copy-on-write DML, OPTIMIZE)
    spark.sql(f"CREATE TABLE silt.`{own}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableRowTracking = true)")
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"UPDATE silt.`{own}` SET v = 'B' WHERE id = 2")
    spark.sql(f"OPTIMIZE silt.`{own}`")
    mine = silt_rows(spark, ROW_IDS, own)
    after = run_reference([q(own), {"op": "sql", "statements": [
        f"UPDATE delta.`{own}` SET v = 'A' WHERE id = 1", f"INSERT INTO delta.`{own}` VALUES (4, 'd')"]}, q(own)])
    assert after[0]["rows"] == mine
    assert silt_rows(spark, ROW_IDS, own) == after[2]["rows"]
    assert [r[2] for r in after[2]["rows"][:3]] == [r[2] for r in mine]
    assert sorted(deltalake.DeltaTable(own).to_pyarrow_table().column("id").to_pylist()) == [1, 2, 3, 4]


def test_identity_columns_round_trip(spark, tmp_path):
    """Each engine appends to the other's identity table: its values go above the other's
    high-water mark, never repeating one, in the column's start + k * step."""
    ref, own = str(tmp_path / "ref_id"), str(tmp_path / "silt_id")
    q = lambda p: {"op": "query", "sql": f"SELECT id, v FROM delta.`{p}` ORDER BY id"}
    first = run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{ref}` (id BIGINT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5), "
        "v STRING) USING delta",
        f"INSERT INTO delta.`{ref}` (v) VALUES ('r1'), ('r2')"]}])
    assert first[0].get("ok", True), first
    spark.sql(f"INSERT INTO silt.`{ref}` (v) VALUES ('s1'), ('s2'), ('s3')")
    spark.createDataFrame([("s4",)], "v STRING").write.format("silt").mode("append").save(ref)
    spark.sql(f"CREATE TABLE silt.`{own}` (id BIGINT GENERATED BY DEFAULT AS IDENTITY (START WITH -1 INCREMENT BY -2), "
              "v STRING) USING silt")
    spark.sql(f"INSERT INTO silt.`{own}` (v) VALUES ('s1'), ('s2')")
    after = run_reference([{"op": "sql", "statements": [
        f"INSERT INTO delta.`{ref}` (v) VALUES ('r3')", f"INSERT INTO delta.`{own}` (v) VALUES ('r1')",
        f"INSERT INTO delta.`{own}` VALUES (1000, 'given')"]}, q(ref), q(own)])
    assert after[0].get("ok", True), after
    for rows, start, step in [(after[1]["rows"], 10, 5), (after[2]["rows"], -1, -2)]:
        generated = [int(r[0]) for r in rows if r[1] != "given"]
        assert len(set(generated)) == len(generated) and all((g - start) % step == 0 for g in generated)
    ids = {r[1]: int(r[0]) for r in after[1]["rows"]}
    assert min(ids["s1"], ids["s2"], ids["s3"], ids["s4"]) > max(ids["r1"], ids["r2"])
    assert ids["r3"] > max(ids.values()) - 1 and len(ids) == 7
    own_ids = {r[1]: int(r[0]) for r in after[2]["rows"]}
    assert own_ids["r1"] < min(own_ids["s1"], own_ids["s2"]) and own_ids["given"] == 1000
    assert silt_rows(spark, "SELECT id, v FROM {t} ORDER BY id", ref) == after[1]["rows"]


def test_drop_feature_round_trip(spark, tmp_path):
    """A table Silt dropped deletion vectors from is read and written by the reference; one the
    reference dropped them from (its empty commits and protected checkpoints) is read and written by Silt."""
    own, ref = str(tmp_path / "silt_drop"), str(tmp_path / "ref_drop")
    spark.sql(f"CREATE TABLE silt.`{own}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableDeletionVectors = true)")
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    spark.sql(f"DELETE FROM silt.`{own}` WHERE id = 2")
    spark.sql(f"ALTER TABLE silt.`{own}` DROP FEATURE deletionVectors")
    q = lambda p: {"op": "query", "sql": f"SELECT id, v FROM delta.`{p}` ORDER BY id"}
    res = run_reference([q(own), {"op": "sql", "statements": [
        f"DELETE FROM delta.`{own}` WHERE id = 3",
        f"CREATE TABLE delta.`{ref}` (id INT, v STRING) USING delta TBLPROPERTIES (delta.enableDeletionVectors = true)",
        f"INSERT INTO delta.`{ref}` VALUES (1, 'a'), (2, 'b'), (3, 'c')",
        f"DELETE FROM delta.`{ref}` WHERE id = 2",
        f"ALTER TABLE delta.`{ref}` DROP FEATURE deletionVectors"]}, q(own)])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == [["1", "a"], ["3", "c"]] and res[2]["rows"] == [["1", "a"]]
    assert silt_rows(spark, "SELECT id, v FROM {t} ORDER BY id", ref) == [["1", "a"], ["3", "c"]]
    spark.sql(f"INSERT INTO silt.`{ref}` VALUES (4, 'd')")
    assert run_reference([q(ref)])[0]["rows"] == [["1", "a"], ["3", "c"], ["4", "d"]]


def test_type_widening_drop_round_trip(spark, tmp_path):
    """A table Silt dropped type widening from is read and written by the reference; a table the
    reference widened is dropped by Silt, and the reference reads the result."""
    own, ref = str(tmp_path / "silt_tw"), str(tmp_path / "ref_tw")
    spark.sql(f"CREATE TABLE silt.`{own}` (id INT, v SMALLINT) USING silt TBLPROPERTIES (delta.enableTypeWidening = true)")
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (1, 10S), (2, 20S)")
    spark.sql(f"ALTER TABLE silt.`{own}` ALTER COLUMN v TYPE INT")
    spark.sql(f"ALTER TABLE silt.`{own}` DROP FEATURE typeWidening")
    q = lambda p: {"op": "query", "sql": f"SELECT id, v FROM delta.`{p}` ORDER BY id"}
    res = run_reference([q(own), {"op": "sql", "statements": [
        f"INSERT INTO delta.`{own}` VALUES (3, 100000)",
        f"CREATE TABLE delta.`{ref}` (id INT, v SMALLINT) USING delta TBLPROPERTIES (delta.enableTypeWidening = true)",
        f"INSERT INTO delta.`{ref}` VALUES (1, 10S), (2, 20S)",
        f"ALTER TABLE delta.`{ref}` ALTER COLUMN v TYPE INT",
        f"INSERT INTO delta.`{ref}` VALUES (3, 100000)"]}, {"op": "detail", "path": own}])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == [["1", "10"], ["2", "20"]] and "typeWidening" not in res[2]["tableFeatures"]
    spark.sql(f"ALTER TABLE silt.`{ref}` DROP FEATURE typeWidening")
    res = run_reference([q(ref), q(own), {"op": "detail", "path": ref}])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == res[1]["rows"] == [["1", "10"], ["2", "20"], ["3", "100000"]]
    assert "typeWidening" not in res[2]["tableFeatures"] and "checkpointProtection" in res[2]["tableFeatures"]


def test_column_mapping_drop_round_trip(spark, tmp_path):
    """A table Silt took column mapping off (renamed column, clustered) is read and written by the
    reference; one the reference took it off is read and written by Silt."""
    own, ref = str(tmp_path / "silt_cm"), str(tmp_path / "ref_cm")
    spark.sql(f"CREATE TABLE silt.`{own}` (id INT, note STRING) USING silt CLUSTER BY (id) "
              "TBLPROPERTIES (delta.columnMapping.mode = 'id')")
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"ALTER TABLE silt.`{own}` RENAME COLUMN note TO remark")
    spark.sql(f"ALTER TABLE silt.`{own}` DROP FEATURE columnMapping")
    q = lambda p, c: {"op": "query", "sql": f"SELECT id, {c} FROM delta.`{p}` ORDER BY id"}
    res = run_reference([q(own, "remark"), {"op": "sql", "statements": [
        f"INSERT INTO delta.`{own}` VALUES (3, 'c')",
        f"CREATE TABLE delta.`{ref}` (id INT, note STRING) USING delta TBLPROPERTIES (delta.columnMapping.mode = 'name')",
        f"INSERT INTO delta.`{ref}` VALUES (1, 'a'), (2, 'b')",
        f"ALTER TABLE delta.`{ref}` RENAME COLUMN note TO remark",
        f"ALTER TABLE delta.`{ref}` DROP FEATURE columnMapping"]},
        {"op": "detail", "path": own}, {"op": "detail", "path": ref}])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == [["1", "a"], ["2", "b"]]
    assert "columnMapping" not in res[2]["tableFeatures"] and res[2]["clusteringColumns"] == ["id"]
    assert "columnMapping" not in res[3]["tableFeatures"]
    assert silt_rows(spark, "SELECT id, remark FROM {t} ORDER BY id", ref) == [["1", "a"], ["2", "b"]]
    spark.sql(f"INSERT INTO silt.`{ref}` VALUES (3, 'c')")
    res = run_reference([q(ref, "remark"), q(own, "remark")])
    assert res[0]["rows"] == res[1]["rows"] == [["1", "a"], ["2", "b"], ["3", "c"]]


def test_truncate_history_round_trip(spark, tmp_path):
    """Tables whose history Silt truncated (deletion vectors dropped with TRUNCATE HISTORY; and
    checkpointProtection dropped) are read and written by the reference, which sees the lowered protocols."""
    cut, unprotected = str(tmp_path / "cut"), str(tmp_path / "unprotected")
    for p in (cut, unprotected):
        spark.sql(f"CREATE TABLE silt.`{p}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableDeletionVectors = true, "
                  "delta.dropFeatureTruncateHistory.retentionDuration = '0 hours')")
        spark.sql(f"INSERT INTO silt.`{p}` VALUES (1, 'a'), (2, 'b'), (3, 'c')")
        spark.sql(f"DELETE FROM silt.`{p}` WHERE id = 2")
    with pytest.raises(silt.errors.FeatureInHistoryException):
        spark.sql(f"ALTER TABLE silt.`{cut}` DROP FEATURE deletionVectors TRUNCATE HISTORY")
    spark.sql(f"ALTER TABLE silt.`{cut}` DROP FEATURE deletionVectors TRUNCATE HISTORY")
    spark.sql(f"ALTER TABLE silt.`{unprotected}` DROP FEATURE deletionVectors")
    spark.sql(f"ALTER TABLE silt.`{unprotected}` DROP FEATURE checkpointProtection TRUNCATE HISTORY")
    q = lambda p: {"op": "query", "sql": f"SELECT id, v FROM delta.`{p}` ORDER BY id"}
    res = run_reference([q(cut), q(unprotected), {"op": "sql", "statements": [
        f"INSERT INTO delta.`{p}` VALUES (4, 'd')" for p in (cut, unprotected)]},
        {"op": "detail", "path": cut}, {"op": "detail", "path": unprotected}])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == res[1]["rows"] == [["1", "a"], ["3", "c"]]
    for detail in res[3:]:
        assert not {"deletionVectors", "checkpointProtection"} & set(detail["tableFeatures"]), detail
    for p in (cut, unprotected):
        assert sorted(tuple(r) for r in spark.read.format("silt").load(p).collect()) == [(1, "a"), (3, "c"), (4, "d")]


def test_row_tracking_drop_round_trip(spark, tmp_path):
    """Silt drops row tracking (and then domainMetadata) from a table the reference wrote and updated,
    and the reference goes on writing it; the reference drops it from Silt's table, and Silt goes on."""
    ref, own = str(tmp_path / "ref_rt"), str(tmp_path / "silt_rt")
    q = lambda p: {"op": "query", "sql": f"SELECT id, v FROM delta.`{p}` ORDER BY id"}
    first = run_reference([{"op": "sql", "statements": [
        f"CREATE TABLE delta.`{ref}` (id INT, v STRING) USING delta TBLPROPERTIES (delta.enableRowTracking = true)",
        f"INSERT INTO delta.`{ref}` VALUES (1, 'a'), (2, 'b')", f"UPDATE delta.`{ref}` SET v = 'B' WHERE id = 2"]}])
    assert first[0].get("ok", True), first
    spark.sql(f"ALTER TABLE silt.`{ref}` DROP FEATURE rowTracking")
    spark.sql(f"ALTER TABLE silt.`{ref}` DROP FEATURE domainMetadata")
    spark.sql(f"CREATE TABLE silt.`{own}` (id INT, v STRING) USING silt TBLPROPERTIES (delta.enableRowTracking = true)")
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (1, 'a'), (2, 'b')")
    spark.sql(f"UPDATE silt.`{own}` SET v = 'B' WHERE id = 2")
    res = run_reference([q(ref), {"op": "sql", "statements": [
        f"INSERT INTO delta.`{ref}` VALUES (3, 'c')", f"ALTER TABLE delta.`{own}` DROP FEATURE rowTracking"]},
        q(ref), {"op": "detail", "path": ref}, {"op": "detail", "path": own}])
    assert all(r.get("ok", True) for r in res), res
    assert res[0]["rows"] == [["1", "a"], ["2", "B"]] and res[2]["rows"][-1] == ["3", "c"]
    assert not {"rowTracking", "domainMetadata"} & set(res[3]["tableFeatures"])
    assert "rowTracking" not in res[4]["tableFeatures"]
    spark.sql(f"INSERT INTO silt.`{own}` VALUES (3, 'c')")
    assert silt_rows(spark, "SELECT id, v FROM {t} ORDER BY id", own) == [["1", "a"], ["2", "B"], ["3", "c"]]
