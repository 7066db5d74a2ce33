"""Delta Lake's write-conflict table, cell by cell, under both isolation levels.

For each pair of operations (INSERT, UPDATE, DELETE, MERGE, OPTIMIZE) the first is paused just
before its commit (the engine's CommitPause hook), the second runs to completion, then the first
commits or fails. Both touch partition day = 1 ("same"), or the second touches day = 2
("different"). The rows afterwards must be those of the operations that committed, applied one
after the other in the order the isolation level promises, computed here by a model of each
operation. Delta's documented table (https://docs.delta.io/latest/concurrency-control.html):

                 INSERT            UPDATE/DELETE/MERGE             OPTIMIZE
  INSERT         cannot conflict
  UPD/DEL/MERGE  Serializable: can  can conflict under both
                 WriteSerializable: cannot (blind append)
  OPTIMIZE       cannot conflict   can conflict                    can conflict

"Can conflict" means: exactly when both touch the same partition here. Where Delta Lake fails an
OPTIMIZE paused while a DML or another OPTIMIZE changed its files, Silt's OPTIMIZE yields instead:
it gives up the bins that read those files, commits the rest (here: nothing), and raises nothing.

The row-level cells (test_other_rows_of_the_same_files): both touch partition day = 1, the paused
operation its ids below 30, the winner its ids from 30 on, rows that share the partition's files.
With deletion vectors, DML against DML or an INSERT of rows the other does not read then never
conflicts (row-level concurrency, docs/concurrency.md). A DML still fails after an OPTIMIZE that
rewrote its files; an OPTIMIZE after a DML changed its files yields, committing nothing.
"""
from collections import Counter

import pytest

import silt
from conftest import concurrently

pytestmark = pytest.mark.full  # second tier: make test-full

OPS = ["INSERT", "UPDATE", "DELETE", "MERGE", "OPTIMIZE"]
DML = {"UPDATE", "DELETE", "MERGE"}
PAUSED_DAY = 1
BASE = [(i, i % 3, "old") for i in range(60)]  # two files in each partition day = 0, 1, 2


def expected_error(paused, winner, level, same_partition):
    """The exception the paused operation fails with, or None when both commit."""
    if not same_partition or paused == "INSERT":
        return None  # a blind append reads nothing; disjoint partitions share nothing
    if paused == "OPTIMIZE":
        # snapshot isolation: only the files it compacts being removed (or given a DV) matter, and
        # then its bin yields: it commits nothing, without an error (yields() below)
        return None
    if winner == "INSERT":
        return silt.ConcurrentAppendException if level == "Serializable" else None
    if winner == "OPTIMIZE":
        return silt.ConcurrentDeleteReadException  # OPTIMIZE adds no data, removes what was read
    return silt.ConcurrentAppendException  # the winner re-added (DV) or rewrote files of the partition read


# The model: each operation's effect on a list of (id, day, v) rows.
# half: None, the rows with id % 10 == 0; "low" or "high", the ids below 30 or from 30 on.
def new_id(day, half=None):
    # id % 10 == 0, so UPDATE and DELETE below match it once it is there; a half's INSERT matches neither half
    return 5000 + 100 * day if half is None else 6000 + 100 * day + (30 if half == "high" else 0)


def merge_source(day, half=None):
    shift = 30 if half == "high" else 0
    return [([0, 10, 20][day] + shift, day, "m"), (5000 + 100 * day + shift, day, "m"), (7000 + 100 * day + shift, day, "m")]


def selects(half):
    """The SQL condition and the model's test for the rows an UPDATE or DELETE changes (besides the day)."""
    if half is None:
        return "id % 10 = 0", lambda i: i % 10 == 0
    return ("id < 30", lambda i: i < 30) if half == "low" else ("id >= 30", lambda i: i >= 30)


def model(op, rows, day, half=None):
    hit = lambda r: r[1] == day and selects(half)[1](r[0])  # noqa: E731
    if op == "INSERT":
        return rows + [(new_id(day, half), day, "ins")]
    if op == "UPDATE":
        return [(i, d, v + "|u") if hit((i, d, v)) else (i, d, v) for i, d, v in rows]
    if op == "DELETE":
        return [r for r in rows if not hit(r)]
    if op == "MERGE":
        source = {s[0]: s for s in merge_source(day, half)}
        in_half = lambda i: half is None or selects(half)[1](i)  # noqa: E731 - the ON condition's range
        out = [(i, d, v + "|m") if d == day and i in source and in_half(i) else (i, d, v) for i, d, v in rows]
        matched = {i for i, d, _ in rows if d == day and in_half(i)}
        return out + [s for i, s in source.items() if i not in matched]
    return rows  # OPTIMIZE


def run(spark, op, path, day, half=None):
    where = selects(half)[0]
    if op == "INSERT":
        spark.createDataFrame([(new_id(day, half), day, "ins")], "id long, day int, v string") \
            .write.format("silt").mode("append").save(path)
    elif op == "UPDATE":
        spark.sql(f"UPDATE silt.`{path}` SET v = concat(v, '|u') WHERE day = {day} AND {where}").collect()
    elif op == "DELETE":
        spark.sql(f"DELETE FROM silt.`{path}` WHERE day = {day} AND {where}").collect()
    elif op == "MERGE":
        values = ", ".join(f"({i}L, {d}, '{v}')" for i, d, v in merge_source(day, half))
        spark.sql(f"MERGE INTO silt.`{path}` t USING (SELECT * FROM VALUES {values} AS s(id, day, v)) s "
                  f"ON t.id = s.id AND t.day = {day}{'' if half is None else ' AND t.' + where} "
                  "WHEN MATCHED THEN UPDATE SET v = concat(t.v, '|m') WHEN NOT MATCHED THEN INSERT *").collect()
    else:
        spark.sql(f"OPTIMIZE '{path}' WHERE day = {day}").collect()


def table(spark, path, level, dvs=True):
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, day INT, v STRING) USING silt PARTITIONED BY (day) "
              f"TBLPROPERTIES ('delta.enableDeletionVectors' = '{str(dvs).lower()}', 'delta.isolationLevel' = '{level}')")
    spark.createDataFrame(BASE, "id long, day int, v string").repartition(2).write.format("silt").mode("append").save(path)


def yields(paused, winner, same_partition):
    """Whether the paused OPTIMIZE gives up its one bin, whose files the winner changed."""
    return paused == "OPTIMIZE" and same_partition and winner != "INSERT"


def check_cell(spark, path, paused, winner, level, same_partition, dvs=True):
    table(spark, path, level, dvs)
    winner_day = PAUSED_DAY if same_partition else 2
    error = concurrently(spark, path, lambda: run(spark, paused, path, PAUSED_DAY),
                         lambda: run(spark, winner, path, winner_day))
    want = expected_error(paused, winner, level, same_partition)
    if want is None:
        assert error is None, f"{paused} after {winner} ({level}): {error}"
        # A blind append that a WriteSerializable DML did not see serializes after it.
        blind_after = level == "WriteSerializable" and winner == "INSERT" and paused in DML
        first, second = ((paused, PAUSED_DAY), (winner, winner_day)) if blind_after else \
            ((winner, winner_day), (paused, PAUSED_DAY))
        rows = model(second[0], model(first[0], BASE, first[1]), second[1])
        history = spark.sql(f"DESCRIBE HISTORY '{path}'").first()
        gave_up = yields(paused, winner, same_partition)
        last = winner if gave_up else paused
        assert history["version"] == (2 if gave_up else 3)
        assert history["isolationLevel"] == ("SnapshotIsolation" if last == "OPTIMIZE" else level)
    else:
        assert isinstance(error, want), f"{paused} after {winner} ({level}): {error!r}"
        assert "a concurrent" in str(error) and "(version 2)" in str(error) and "committed nothing" in str(error)
        rows = model(winner, BASE, winner_day)
        assert spark.sql(f"DESCRIBE HISTORY '{path}'").first()["version"] == 2
    got = Counter(tuple(r) for r in spark.read.format("silt").load(path).select("id", "day", "v").collect())
    assert got == Counter(rows), f"{paused} after {winner} ({level}): rows {got - Counter(rows)} vs {Counter(rows) - got}"


@pytest.mark.parametrize("level", ["Serializable", "WriteSerializable"])
@pytest.mark.parametrize("paused", OPS)
@pytest.mark.parametrize("winner", OPS)
def test_the_same_partition(spark, tmp_path, paused, winner, level):
    check_cell(spark, str(tmp_path / "t"), paused, winner, level, same_partition=True)


@pytest.mark.parametrize("paused", OPS)
@pytest.mark.parametrize("winner", OPS)
def test_different_partitions_never_conflict(spark, tmp_path, paused, winner):
    # Serializable is the stricter level: what commits under it commits under WriteSerializable.
    check_cell(spark, str(tmp_path / "t"), paused, winner, "Serializable", same_partition=False)


@pytest.mark.parametrize("paused,winner", [("UPDATE", "MERGE"), ("MERGE", "UPDATE"), ("DELETE", "INSERT"),
                                           ("OPTIMIZE", "DELETE"), ("MERGE", "INSERT")])
def test_copy_on_write_cells(spark, tmp_path, paused, winner):
    check_cell(spark, str(tmp_path / "t"), paused, winner, "Serializable", same_partition=True, dvs=False)


def other_rows_error(paused, winner):
    """The exception the paused operation fails with when the two touch other rows of the same files."""
    if paused == "INSERT" or winner == "INSERT":
        return None  # the INSERT's row is in neither half
    if paused == "OPTIMIZE":
        return None  # its bin read files the DML changed: it yields, committing nothing
    if winner == "OPTIMIZE":
        return silt.ConcurrentDeleteReadException  # OPTIMIZE rewrote the files the DML marks rows of
    return None  # row-level concurrency: the paused DML is rebased on the winner


@pytest.mark.parametrize("paused", OPS)
@pytest.mark.parametrize("winner", OPS)
def test_other_rows_of_the_same_files(spark, tmp_path, paused, winner):
    # Serializable is the stricter level: what commits under it commits under WriteSerializable.
    level = "Serializable"
    path = str(tmp_path / "t")
    table(spark, path, level)
    error = concurrently(spark, path, lambda: run(spark, paused, path, PAUSED_DAY, "low"),
                         lambda: run(spark, winner, path, PAUSED_DAY, "high"))
    want = other_rows_error(paused, winner)
    after_winner = model(winner, BASE, PAUSED_DAY, "high")
    if want is None:
        assert error is None, f"{paused} after {winner} ({level}): {error}"
        rows = model(paused, after_winner, PAUSED_DAY, "low")
    else:
        assert isinstance(error, want), f"{paused} after {winner} ({level}): {error!r}"
        rows = after_winner
    got = Counter(tuple(r) for r in spark.read.format("silt").load(path).select("id", "day", "v").collect())
    assert got == Counter(rows), f"{paused} after {winner} ({level}): rows {got - Counter(rows)} vs {Counter(rows) - got}"
