"""The operations of the crash and soak tests, and a model of what each does to the rows.

A table holds (id BIGINT, v INT). Seed rows have ids below SEED_ROWS; appends add ids of their
own far above; DELETE and UPDATE only touch seed rows, by residue classes, so the expected rows
follow from which commands committed, in any order:
  a seed row is present iff no committed DELETE's class holds it, and its v is the number of
  committed UPDATEs whose class holds it; appended batches are present exactly once iff committed.
Upserts MERGE windows of UPSERT_BATCH keys out of UPSERT_KEYS shared keys (windows of different
upserters overlap): a key is present exactly once iff a committed upsert covered it, and its v
is the number of committed upserts that did.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Set, Tuple

SEED_ROWS = 20_000
DELETE_MOD = 53
UPDATE_MOD = 41
BATCH_ROWS = 200
UPSERT_BASE = 900_000_000
UPSERT_KEYS = 400
UPSERT_BATCH = 20


def batch_ids(writer: int, batch: int) -> range:
    start = 1_000_000 * (writer + 1) + batch * BATCH_ROWS
    return range(start, start + BATCH_ROWS)


def create_sql(path) -> List[str]:
    return [f"CREATE TABLE silt.`{path}` (id BIGINT, v INT) USING silt TBLPROPERTIES "
            "('delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '5')",
            f"INSERT INTO silt.`{path}` SELECT id, 0 FROM range({SEED_ROWS})"]


def append_sql(path, writer: int, batch: int) -> str:
    ids = batch_ids(writer, batch)
    return f"INSERT INTO silt.`{path}` SELECT id, 0 FROM range({ids.start}, {ids.stop})"


def upsert_keys(writer: int, batch: int) -> List[int]:
    """The keys upsert `batch` of upserter `writer` covers: a window that other upserters' windows overlap."""
    start = (writer * 50 + batch * 13) % UPSERT_KEYS
    return [UPSERT_BASE + (start + i) % UPSERT_KEYS for i in range(UPSERT_BATCH)]


def upsert_sql(path, writer: int, batch: int) -> str:
    keys = ", ".join(str(k) for k in upsert_keys(writer, batch))
    # The target-only conjunct lets a concurrent append of other ids (by its statistics) not conflict.
    return (f"MERGE INTO silt.`{path}` t USING (SELECT explode(array({keys})) AS id) s "
            f"ON t.id = s.id AND t.id >= {UPSERT_BASE} WHEN MATCHED THEN UPDATE SET v = t.v + 1 "
            "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 1)")


def delete_sql(path, r: int) -> str:
    return f"DELETE FROM silt.`{path}` WHERE id < {SEED_ROWS} AND id % {DELETE_MOD} = {r}"


def update_sql(path, r: int) -> str:
    return f"UPDATE silt.`{path}` SET v = v + 1 WHERE id < {SEED_ROWS} AND id % {UPDATE_MOD} = {r}"


@dataclass
class Model:
    """What has committed: appended batches, DELETE classes, UPDATE classes (with repeats)."""
    batches: Set[Tuple[int, int]] = field(default_factory=set)
    deletes: Set[int] = field(default_factory=set)
    updates: List[int] = field(default_factory=list)
    upserts: List[Tuple[int, int]] = field(default_factory=list)

    def rows(self) -> Dict[int, int]:
        out = {}
        for i in range(SEED_ROWS):
            if i % DELETE_MOD not in self.deletes:
                out[i] = sum(1 for r in self.updates if i % UPDATE_MOD == r)
        for w, b in self.batches:
            for i in batch_ids(w, b):
                out[i] = 0
        for w, b in self.upserts:
            for k in upsert_keys(w, b):
                out[k] = out.get(k, 0) + 1
        return out

    def copy(self) -> "Model":
        return Model(set(self.batches), set(self.deletes), list(self.updates), list(self.upserts))

    def apply(self, op: Tuple[str, int, int]) -> "Model":
        """This model with one more committed operation ('append', writer, batch) / ('delete', r, 0) / ..."""
        m = self.copy()
        kind, a, b = op
        if kind == "append":
            m.batches.add((a, b))
        elif kind == "delete":
            m.deletes.add(a)
        elif kind == "update":
            m.updates.append(a)
        elif kind == "upsert":
            m.upserts.append((a, b))
        return m


def sql_of(path, op: Tuple[str, int, int]) -> List[str]:
    """The statements of one operation of the crash test's writer."""
    kind, a, b = op
    if kind == "append":
        return [append_sql(path, a, b)]
    if kind == "delete":
        return [delete_sql(path, a)]
    if kind == "update":
        return [update_sql(path, a)]
    if kind == "optimize":
        return [f"OPTIMIZE silt.`{path}` ZORDER BY (id, v)"]
    if kind == "checkpoint":
        return [f"CHECKPOINT silt.`{path}`"]
    if kind == "vacuum":
        return [f"VACUUM silt.`{path}` RETAIN 0 HOURS"]
    raise ValueError(kind)


def crash_op(step: int) -> Tuple[str, int, int]:
    """The crash test writer's operation number `step`: a fixed cycle over every kind of write."""
    kinds = ["append", "delete", "append", "update", "optimize", "append", "checkpoint", "delete", "vacuum"]
    kind = kinds[step % len(kinds)]
    if kind == "append":
        return kind, 0, step
    if kind == "delete":
        return kind, step % DELETE_MOD, 0
    if kind == "update":
        return kind, step % UPDATE_MOD, 0
    return kind, 0, 0


def read_rows(spark, path) -> Dict[int, int]:
    return {r["id"]: r["v"] for r in spark.read.format("silt").load(str(path)).collect()}
