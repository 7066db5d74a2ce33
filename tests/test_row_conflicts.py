"""Conflicts judged on rows: two DML statements on disjoint rows whose statistics cannot tell them apart.

Each writer owns a slice of the rows by a condition file statistics cannot separate: a modulo, an IN
list, string equality, a hash. Every file of the table holds rows of every slice, and the new rows a
winning UPDATE or MERGE writes span the ids of its slice, so their min/max cannot rule out the other
slice either. One statement is paused just before its commit (the CommitPause hook), the other runs
whole, then the first commits. With row-level concurrency the paused one reads the winner's new
rows, tests them against its own condition (a MERGE: whether a source row joins them), and commits
when none matches; the rows are then those of the two run one after the other (the model: the same
statements run serially on a second table). A winner whose new rows match, or a shared row, still
conflicts with Delta Lake's exception.
"""
from collections import Counter

import pytest

import silt
from conftest import concurrently

SECOND_TIER = pytest.mark.full  # make test-full; make test keeps a slice

# Each kind: the paused writer's slice and the winner's, on (id, day, k); k = 'a', 'b', 'c' or 'd' by id % 4.
KINDS = {
    "modulo": ("id % 4 = 0", "id % 4 = 1"),
    "in": ("id IN (0, 4, 8, 13, 22, 49, 103, 1000, 1003)", "id IN (1, 5, 10, 19, 25, 55, 107, 1001, 1006)"),
    "string": ("k = 'b'", "k IN ('a', 'c')"),
    "hash": ("pmod(hash(id), 4) = 0", "pmod(hash(id), 4) = 1"),
}
ROWS = 120
COLUMNS = "id, id % 3 AS day, element_at(array('a', 'b', 'c', 'd'), CAST(id % 4 AS INT) + 1) AS k"


def table(spark, path, partitioned, level="WriteSerializable"):
    """Two files (four in the partitioned table: two in each of day = 0, 1, 2), each holding ids from the whole range."""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day BIGINT, k STRING, v STRING) USING silt "
              f"{'PARTITIONED BY (day) ' if partitioned else ''}TBLPROPERTIES ("
              f"'delta.enableDeletionVectors' = 'true', 'delta.isolationLevel' = '{level}')")
    spark.sql(f"SELECT {COLUMNS}, 'old' AS v FROM range(0, {ROWS})").repartition(2) \
        .write.format("silt").mode("append").save(path)


def statement(op, path, where, partitioned):
    """The writer's statement on its slice `where` (on the partitioned table, within day = 1)."""
    t = f"silt.`{path}`"
    where = f"day = 1 AND ({where})" if partitioned else where
    if op == "UPDATE":
        return f"UPDATE {t} SET v = concat(v, '|u') WHERE {where}"
    if op == "DELETE":
        return f"DELETE FROM {t} WHERE {where}"
    # some of the slice's rows, and a new one from ids 1000 on
    source = f"SELECT * FROM (SELECT {COLUMNS} FROM range(0, 1300)) WHERE ({where}) AND (id < 60 OR id >= 1000)"
    return (f"MERGE INTO {t} t USING ({source}) s ON t.id = s.id AND t.day = s.day "
            "WHEN MATCHED THEN UPDATE SET v = concat(t.v, '|m') "
            "WHEN NOT MATCHED AND s.id < 1100 THEN INSERT (id, day, k, v) VALUES (s.id, s.day, s.k, 'new')")


def rows_of(spark, path):
    return Counter(tuple(r) for r in spark.read.format("silt").load(path).select("id", "day", "k", "v").collect())


def serially(spark, path, partitioned, *statements):
    """The rows of a fresh table after `statements`, one after the other: the model."""
    table(spark, path, partitioned)
    for s in statements:
        spark.sql(s.format(t=path)).collect()
    return rows_of(spark, path)


def race(spark, tmp_path, paused, winner, partitioned=False, level="WriteSerializable"):
    """Runs `paused` up to its commit, `winner` whole, then `paused`'s commit: its error, and the model of both."""
    p = str(tmp_path / "t")
    table(spark, p, partitioned, level)
    error = concurrently(spark, p, lambda: spark.sql(paused.format(t=p)).collect(),
                         lambda: spark.sql(winner.format(t=p)).collect())
    return p, error


def commit_metrics(spark, path):
    return spark.sql(f"DESCRIBE HISTORY '{path}'").orderBy("version").collect()[-1]["operationMetrics"]


# Every pair whose winner adds rows (UPDATE, MERGE), and MERGE after DELETE; a DELETE winner's only
# change, rows marked in deletion vectors, is row-level concurrency's (test_row_level_concurrency.py).
PAIRS = [(a, b) for a in ("UPDATE", "DELETE", "MERGE") for b in ("UPDATE", "MERGE")] + [("MERGE", "DELETE")]
# the pairs, each level
LEVEL_PAIRS = [("UPDATE", "UPDATE"), ("UPDATE", "MERGE"), ("MERGE", "MERGE"), ("DELETE", "MERGE"), ("MERGE", "DELETE")]
# make test runs these cells; make test-full the rest
FIRST_TIER = {("UPDATE", "UPDATE", "modulo", False), ("MERGE", "UPDATE", "hash", True), ("DELETE", "MERGE", "string", False),
              ("UPDATE", "MERGE", "in", True)}


def cells():
    for paused, winner in PAIRS:
        for kind in KINDS:
            for partitioned in (False, True):
                marks = () if (paused, winner, kind, partitioned) in FIRST_TIER else (SECOND_TIER,)
                yield pytest.param(paused, winner, kind, partitioned, marks=marks,
                                   id=f"{paused}-{winner}-{kind}-{'partitioned' if partitioned else 'unpartitioned'}")


@pytest.mark.parametrize("paused,winner,kind,partitioned", list(cells()))
def test_disjoint_rows_both_commit(spark, tmp_path, paused, winner, kind, partitioned):
    ours, theirs = KINDS[kind]
    p, error = race(spark, tmp_path, statement(paused, "{t}", ours, partitioned), statement(winner, "{t}", theirs, partitioned),
                    partitioned)
    assert error is None, f"{paused} after {winner} on {kind}: {error}"
    want = serially(spark, str(tmp_path / "model"), partitioned, statement(winner, "{t}", theirs, partitioned),
                    statement(paused, "{t}", ours, partitioned))
    assert rows_of(spark, p) == want
    if winner != "DELETE":  # a DELETE adds no rows: nothing to read
        assert int(commit_metrics(spark, p)["numConflictCheckedRows"]) > 0


@pytest.mark.parametrize("paused,winner", [pytest.param(a, b, marks=() if (a, b) == ("MERGE", "MERGE") else (SECOND_TIER,))
                                           for a, b in LEVEL_PAIRS])
def test_disjoint_rows_under_serializable(spark, tmp_path, paused, winner):
    ours, theirs = KINDS["modulo"]
    p, error = race(spark, tmp_path, statement(paused, "{t}", ours, False), statement(winner, "{t}", theirs, False),
                    level="Serializable")
    assert error is None, f"{paused} after {winner}: {error}"
    want = serially(spark, str(tmp_path / "model"), False, statement(winner, "{t}", theirs, False),
                    statement(paused, "{t}", ours, False))
    assert rows_of(spark, p) == want


# The winner's new rows fall in the paused writer's slice (id % 4 = 0): the paused one fails.
MOVE = "SET id = {s}id + 1, day = ({s}id + 1) % 3, k = 'a', v = 'moved'"
MOVES_IN = {
    "UPDATE": "UPDATE silt.`{t}` " + MOVE.format(s="") + " WHERE id % 4 = 3",
    "MERGE": ("MERGE INTO silt.`{t}` t USING (SELECT id FROM range(0, 20) WHERE id % 4 = 3) s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE " + MOVE.format(s="t.")),
}


@pytest.mark.parametrize("paused,winner", [pytest.param(a, b, marks=() if (a, b) == ("UPDATE", "UPDATE") else (SECOND_TIER,))
                                           for a, b in PAIRS if b != "DELETE"])
def test_new_rows_that_match_still_conflict(spark, tmp_path, paused, winner):
    ours = KINDS["modulo"][0]
    p, error = race(spark, tmp_path, statement(paused, "{t}", ours, False), MOVES_IN[winner])
    assert isinstance(error, silt.ConcurrentAppendException), error
    said = "that a source row of this MERGE joins (ON" if paused == "MERGE" else "where ((id % 4L) = 0L)"
    assert "tested one by one" in str(error) and said in str(error), str(error)
    assert rows_of(spark, p) == serially(spark, str(tmp_path / "model"), False, MOVES_IN[winner])


def test_a_row_both_change_still_conflicts(spark, tmp_path):
    ours = KINDS["modulo"][0]
    p, error = race(spark, tmp_path, statement("UPDATE", "{t}", ours, False),
                    "UPDATE silt.`{t}` SET v = 'theirs' WHERE id = 8")
    assert isinstance(error, silt.ConcurrentModificationException), error
    assert rows_of(spark, p) == serially(spark, str(tmp_path / "model"), False, "UPDATE silt.`{t}` SET v = 'theirs' WHERE id = 8")


def test_past_the_bound_the_check_is_not_made_and_says_so(spark, tmp_path):
    ours, theirs = KINDS["modulo"]
    spark.conf.set("spark.silt.rowLevelConcurrency.maxCheckedRows", "10")  # the winner writes 30 rows
    try:
        p, error = race(spark, tmp_path, statement("UPDATE", "{t}", ours, False), statement("UPDATE", "{t}", theirs, False))
    finally:
        spark.conf.unset("spark.silt.rowLevelConcurrency.maxCheckedRows")
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert "spark.silt.rowLevelConcurrency.maxCheckedRows = 10" in str(error) and "their 30 rows" in str(error), error
    assert "no overlap was found" in str(error)


@SECOND_TIER
def test_without_row_level_concurrency_statistics_decide_as_in_delta(spark, tmp_path):
    ours, theirs = KINDS["modulo"]
    spark.conf.set("spark.silt.rowLevelConcurrency.enabled", "false")
    try:
        p, error = race(spark, tmp_path, statement("UPDATE", "{t}", ours, False), statement("UPDATE", "{t}", theirs, False))
    finally:
        spark.conf.unset("spark.silt.rowLevelConcurrency.enabled")
    assert isinstance(error, silt.ConcurrentModificationException), error


def test_serializable_judges_a_blind_append_by_its_rows(spark, tmp_path):
    # Under Serializable a blind append counts where the paused DELETE read: by its rows, not its statistics.
    delete = "DELETE FROM silt.`{t}` WHERE id % 4 = 0"
    insert = "INSERT INTO silt.`{t}` VALUES ({i}, 0, 'z', 'new')"
    p, error = race(spark, tmp_path, delete, insert.format(t="{t}", i=5), level="Serializable")
    assert error is None, error
    assert rows_of(spark, p) == serially(spark, str(tmp_path / "model"), False, insert.format(t="{t}", i=5), delete)
    p2 = str(tmp_path / "t2")
    table(spark, p2, False, "Serializable")
    error = concurrently(spark, p2, lambda: spark.sql(delete.format(t=p2)).collect(),
                         lambda: spark.sql(insert.format(t=p2, i=8)).collect())
    assert isinstance(error, silt.ConcurrentAppendException), error
    assert "tested one by one" in str(error)
