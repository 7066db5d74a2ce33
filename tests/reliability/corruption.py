"""The corrupt-input matrix: ways a Delta table can be damaged, and what Silt must do about each.

Each case damages a fresh copy of a pristine table and names the expected outcome:
  ("read", None)            the latest version reads exactly the pristine rows (a documented fallback)
  ("error", ExceptionName)  reading fails with that typed Silt error, whose message names `names`
Never a wrong answer, never a silent skip. Used by tests/reliability/test_corrupt_inputs.py and by
the reliability report (tests/reliability/report.py).
"""
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

LOG = "_delta_log"


def commit_name(v: int) -> str:
    return f"{v:020d}.json"


def build_pristine(spark, path: Path, v2: bool = False) -> None:
    """A table of 7 versions: create (0), three one-file appends (1-3), a DV DELETE touching one
    file (4), CHECKPOINT at 4 (classic, or V2 with a sidecar), two more appends (5, 6)."""
    policy = ", 'delta.checkpointPolicy' = 'v2'" if v2 else ""
    spark.sql(f"CREATE TABLE silt.`{path}` (id BIGINT, v STRING) USING silt TBLPROPERTIES "
              f"('delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '1000'{policy})")
    for i in range(3):
        spark.range(i * 100, i * 100 + 100, 1, 1).selectExpr("id", "CAST(id AS STRING) AS v") \
            .write.format("silt").mode("append").save(str(path))
    spark.sql(f"DELETE FROM silt.`{path}` WHERE id IN (5, 17, 42)")
    spark.sql(f"CHECKPOINT silt.`{path}`")
    for i in range(3, 5):
        spark.range(i * 100, i * 100 + 100, 1, 1).selectExpr("id", "CAST(id AS STRING) AS v") \
            .write.format("silt").mode("append").save(str(path))


def rows(spark, path: Path):
    return sorted((r["id"], r["v"]) for r in spark.read.format("silt").load(str(path)).collect())


# ------------------------------------------------------------------ damage helpers

def _log(t: Path) -> Path:
    return t / LOG


def _lines(t: Path, v: int):
    return (_log(t) / commit_name(v)).read_text().splitlines()


def _write_lines(t: Path, v: int, lines):
    (_log(t) / commit_name(v)).write_text("\n".join(lines) + "\n")


def _edit_action(t: Path, v: int, kind: str, edit: Callable[[dict], None]) -> str:
    """Edits the first `kind` action of commit v in place; returns the action's path."""
    lines = _lines(t, v)
    for i, line in enumerate(lines):
        obj = json.loads(line)
        if kind in obj:
            edit(obj[kind])
            lines[i] = json.dumps(obj)
            _write_lines(t, v, lines)
            return obj[kind].get("path", "")
    raise AssertionError(f"no {kind} action in commit {v}")


def truncate_last_commit(t: Path) -> str:
    f = _log(t) / commit_name(6)
    data = f.read_bytes()
    f.write_bytes(data[: len(data) - 40])
    return f.name


def invalid_json_line(t: Path) -> str:
    lines = _lines(t, 6)
    lines.insert(1, '{"add": {"path": "x.parquet", ')
    _write_lines(t, 6, lines)
    return commit_name(6)


def missing_commit_after_checkpoint(t: Path) -> str:
    (_log(t) / commit_name(5)).unlink()
    return "version 5"


def missing_commit_before_checkpoint(t: Path) -> str:
    (_log(t) / commit_name(2)).unlink()
    return ""


def duplicate_actions(t: Path) -> str:
    lines = _lines(t, 6)
    add = next(line for line in lines if line.startswith('{"add"'))
    _write_lines(t, 6, lines + [add])
    return ""


def _checkpoint_files(t: Path):
    return sorted(p for p in _log(t).iterdir() if ".checkpoint." in p.name and not p.name.startswith("."))


def garbage_checkpoint(t: Path) -> str:
    for p in _checkpoint_files(t):
        p.write_bytes(b"PAR1 this is not a parquet file at all PAR1")
    return ""


def truncated_checkpoint(t: Path) -> str:
    for p in _checkpoint_files(t):
        data = p.read_bytes()
        p.write_bytes(data[: len(data) // 2])
    return ""


def garbage_checkpoint_without_commits(t: Path) -> str:
    garbage_checkpoint(t)
    for v in range(0, 4):
        (_log(t) / commit_name(v)).unlink()
    return _checkpoint_files(t)[0].name


def last_checkpoint(content: str) -> Callable[[Path], str]:
    def damage(t: Path) -> str:
        (_log(t) / "_last_checkpoint").write_text(content)
        return ""
    return damage


def missing_sidecar(t: Path) -> str:
    sidecars = list((_log(t) / "_sidecars").iterdir())
    assert sidecars, "the V2 table has no sidecar"
    for s in sidecars:
        s.unlink()
    return ""


def _dv_file(t: Path) -> Path:
    (f,) = list(t.glob("*.bin"))
    return f


def _flip(f: Path, offset: int):
    data = bytearray(f.read_bytes())
    data[offset] ^= 0xFF
    f.write_bytes(bytes(data))


def dv_wrong_magic(t: Path) -> str:
    f = _dv_file(t)
    _flip(f, 1 + 4)          # version byte, then the DV's 4-byte size, then the bitmap's magic
    return f.name


def dv_wrong_crc(t: Path) -> str:
    f = _dv_file(t)
    _flip(f, len(f.read_bytes()) - 1)   # the last byte of the (only) DV's CRC
    return f.name


def _drop_checkpoints(t: Path):
    """So that an edit of commit 4 (which the checkpoint at 4 covers) is what a reader sees."""
    for p in _checkpoint_files(t) + [_log(t) / "_last_checkpoint"]:
        p.unlink()


def dv_wrong_size(t: Path) -> str:
    _drop_checkpoints(t)
    _edit_action(t, 4, "add", lambda a: a["deletionVector"].update(sizeInBytes=a["deletionVector"]["sizeInBytes"] + 3))
    return _dv_file(t).name


def dv_wrong_cardinality(t: Path) -> str:
    _drop_checkpoints(t)
    return _edit_action(t, 4, "add", lambda a: a["deletionVector"].update(cardinality=a["deletionVector"]["cardinality"] + 1))


def dv_file_missing(t: Path) -> str:
    f = _dv_file(t)
    f.unlink()
    return f.name


def data_file_missing(t: Path) -> str:
    lines = _lines(t, 6)
    add = json.loads(next(line for line in lines if line.startswith('{"add"')))["add"]
    (t / add["path"]).unlink()
    return add["path"]


def unknown_reader_feature(t: Path) -> str:
    protocol = {"protocol": {"minReaderVersion": 3, "minWriterVersion": 7,
                             "readerFeatures": ["deletionVectors", "futureTeleportation"],
                             "writerFeatures": ["deletionVectors", "futureTeleportation"]}}
    (_log(t) / commit_name(7)).write_text(json.dumps({"commitInfo": {"operation": "UPGRADE"}}) + "\n" +
                                          json.dumps(protocol) + "\n")
    return "futureTeleportation"


def _escaping_add(path: str) -> Callable[[Path], str]:
    def damage(t: Path) -> str:
        outside = t.parent / "outside.parquet"
        shutil.copyfile(next(t.glob("*.parquet")), outside)
        _edit_action(t, 6, "add", lambda a: a.update(path=path.format(outside=outside.as_uri())))
        return "outside.parquet"
    return damage


def dv_absolute_outside(t: Path) -> str:
    """The DV re-pointed (storage type 'p') at a copy of its file outside the table directory."""
    _drop_checkpoints(t)
    f = _dv_file(t)
    outside = t.parent / "outside_dv.bin"
    shutil.copyfile(f, outside)
    _edit_action(t, 4, "add", lambda a: a["deletionVector"].update(storageType="p", pathOrInlineDv=outside.as_uri()))
    return ""


@dataclass(frozen=True)
class Case:
    name: str
    damage: Callable[[Path], str]   # returns the text the error must name ("" when a read is expected)
    outcome: str                    # "read" or "error"
    error: Optional[str] = None     # the Silt exception class name, for "error"
    v2: bool = False                # damage the V2-checkpoint variant of the pristine table
    note: str = ""
    strict: bool = False            # read with spark.silt.read.allowFilesOutsideTable = false


CASES = [
    Case("truncated commit JSON", truncate_last_commit, "error", "CorruptLogException"),
    Case("invalid commit JSON line", invalid_json_line, "error", "CorruptLogException"),
    Case("missing commit after the checkpoint", missing_commit_after_checkpoint, "error", "MissingCommitException"),
    Case("missing commit before the checkpoint", missing_commit_before_checkpoint, "read",
         note="the checkpoint covers it; time travel to it fails"),
    Case("duplicate add action", duplicate_actions, "read", note="replay keys files by (path, DV id)"),
    Case("corrupt checkpoint Parquet", garbage_checkpoint, "read", note="falls back to the commits, with a warning"),
    Case("truncated checkpoint Parquet", truncated_checkpoint, "read", note="falls back to the commits, with a warning"),
    Case("corrupt checkpoint, older commits gone", garbage_checkpoint_without_commits, "error", "CorruptLogException"),
    Case("_last_checkpoint points at a version with no checkpoint", last_checkpoint('{"version": 3, "size": 9}'), "read"),
    Case("_last_checkpoint points past the end of the log", last_checkpoint('{"version": 999, "size": 9}'), "read"),
    Case("_last_checkpoint is not JSON", last_checkpoint("\x00garbage{"), "read"),
    Case("V2 checkpoint with its sidecar missing", missing_sidecar, "read", v2=True,
         note="falls back to the commits, with a warning"),
    Case("DV with a wrong magic number", dv_wrong_magic, "error", "CorruptDeletionVectorException"),
    Case("DV with a wrong CRC", dv_wrong_crc, "error", "CorruptDeletionVectorException"),
    Case("DV whose size does not match its descriptor", dv_wrong_size, "error", "CorruptDeletionVectorException"),
    Case("DV whose cardinality does not match its descriptor", dv_wrong_cardinality, "error",
         "CorruptDeletionVectorException"),
    Case("DV file missing", dv_file_missing, "error", "CorruptDeletionVectorException"),
    Case("data file missing", data_file_missing, "error", "MissingDataFileException"),
    Case("unknown reader feature", unknown_reader_feature, "error", "UnsupportedTableFeatureException"),
    Case("relative add path escaping the table (../)", _escaping_add("../outside.parquet"), "error",
         "CorruptLogException"),
    Case("absolute add path outside the table", _escaping_add("{outside}"), "error", "CorruptLogException",
         strict=True, note="by default such paths are read, as shallow clones need"),
    Case("absolute DV path outside the table", dv_absolute_outside, "error", "CorruptLogException", strict=True),
]
