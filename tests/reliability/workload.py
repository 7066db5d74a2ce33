"""The operations of the crash and soak tests, and a model of what each does to the rows.

A table holds (id BIGINT, v INT). Seed rows have ids below SEED_ROWS; appends add ids of their
own far above; DELETE and UPDATE only touch seed rows, by residue classes, so the expected rows
follow from which commands committed, in any order:
  a seed row is present iff no committed DELETE's class holds it, and its v is the number of
  committed UPDATEs whose class holds it; appended batches are present exactly once iff committed.
"""
from dataclasses import dataclass, field
from typing import Dict, List, Set, Tuple

SEED_ROWS = 20_000
DELETE_MOD = 53
UPDATE_MOD = 41
BATCH_ROWS = 200


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

    def rows(self) -> Dict[int, int]:
        out = {}
        for i in range(SEED_ROWS):
            if i % DELETE_MOD not in self.deletes:
                out[i] = sum(1 for r in self.updates if i % UPDATE_MOD == r)
        for w, b in self.batches:
            for i in batch_ids(w, b):
                out[i] = 0
        return out

    def copy(self) -> "Model":
        return Model(set(self.batches), set(self.deletes), list(self.updates))

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
