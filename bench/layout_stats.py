"""A table layout measured from its statistics alone: each file's min/max per column (from the
log, delta-rs or Parquet footers) and the fraction of files a predicate must scan (decided by
silt.layout, the same code as `silt layout`)."""
import json
import math
import random
import statistics
from pathlib import Path

from silt.layout import scanned_fraction

# The benchmark data's string column: a long shared prefix (Delta keeps 32 characters of it).
S_PREFIX = "customer-account-identifier-"
S_DIGITS = 10
S_SPAN = 10 ** S_DIGITS
SEED = 20261122
STAT_COLUMNS = ("x", "y", "s", "k")  # the columns whose statistics the layouts keep


# ------------------------------------------------------------------ statistics from the log

def _dv_id(action):
    """The deletion vector of an add or remove action, as part of its key in the snapshot."""
    dv = action.get("deletionVector")
    if not dv:
        return None
    return (dv.get("storageType"), dv.get("pathOrInlineDv"), dv.get("offset"))


def snapshot_files(table):
    """The latest snapshot's files: [{path, size, rows, min: {col: v}, max: {col: v}}] and how read.

    Replays the JSON commits (adds and removes keyed by path and deletion vector); a table with
    a checkpoint is read with delta-rs' get_add_actions instead."""
    log = Path(table) / "_delta_log"
    if (log / "_last_checkpoint").exists() or any(log.glob("*.checkpoint*.parquet")):
        return files_from_delta_rs(table), "delta-rs get_add_actions (checkpoint present)"
    commits = sorted((int(p.name[:-5]), p) for p in log.glob("*.json") if p.name[:-5].isdigit())
    versions = [v for v, _ in commits]
    if versions != list(range(len(versions))):
        raise RuntimeError(f"{table}: commits are not 0..n without gaps: {versions}")
    live = {}
    for _, p in commits:
        for line in p.read_text().splitlines():
            if not line.strip():
                continue
            a = json.loads(line)
            if "add" in a:
                live[(a["add"]["path"], _dv_id(a["add"]))] = a["add"]
            elif "remove" in a:
                live.pop((a["remove"]["path"], _dv_id(a["remove"])), None)
    out = []
    for add in live.values():
        stats = json.loads(add["stats"]) if add.get("stats") else {}
        out.append({"path": add["path"], "size": add.get("size"), "rows": stats.get("numRecords"),
                    "min": {c: v for c, v in stats.get("minValues", {}).items() if c in STAT_COLUMNS},
                    "max": {c: v for c, v in stats.get("maxValues", {}).items() if c in STAT_COLUMNS}})
    return out, "JSON commits replayed"


def files_from_delta_rs(table):
    """The latest snapshot's files as delta-rs reads them (get_add_actions), in snapshot_files' shape."""
    import pyarrow as pa
    from deltalake import DeltaTable
    t = pa.table(DeltaTable(str(table)).get_add_actions(flatten=True))
    cols = set(t.column_names)
    rows = t.to_pylist()
    out = []
    for r in rows:
        out.append({"path": r["path"], "size": r.get("size_bytes"), "rows": r.get("num_records"),
                    "min": {c: r[f"min.{c}"] for c in STAT_COLUMNS if f"min.{c}" in cols and r[f"min.{c}"] is not None},
                    "max": {c: r[f"max.{c}"] for c in STAT_COLUMNS if f"max.{c}" in cols and r[f"max.{c}"] is not None}})
    return out


def parquet_footer_files(folder):
    """Per-file min/max of x and y from the Parquet footers of a folder of plain Parquet files."""
    import pyarrow.parquet as pq
    out = []
    for f in sorted(Path(folder).glob("*.parquet")):
        md = pq.ParquetFile(f).metadata
        names = [md.schema.column(i).name for i in range(md.num_columns)]
        mins, maxs = {}, {}
        for c in ("x", "y", "s"):
            if c not in names:
                continue
            j = names.index(c)
            lo, hi = [], []
            for g in range(md.num_row_groups):
                st = md.row_group(g).column(j).statistics
                if st is None or not st.has_min_max:
                    lo = hi = None
                    break
                lo.append(st.min)
                hi.append(st.max)
            if lo:
                mins[c], maxs[c] = min(lo), max(hi)
        out.append({"path": f.name, "size": f.stat().st_size, "rows": md.num_rows, "min": mins, "max": maxs})
    return out


def ideal_grid(n):
    """An exact g x g grid on [0, 1)^2 (g = sqrt(n)): each file one cell, no s statistics."""
    g = int(round(math.sqrt(n)))
    return [{"path": f"cell-{i}-{j}", "size": None, "rows": None,
             "min": {"x": i / g, "y": j / g}, "max": {"x": (i + 1) / g, "y": (j + 1) / g}}
            for i in range(g) for j in range(g)]


# ------------------------------------------------------------------ layout quality

def fmt_s(n):
    """The string column's value for the number n."""
    return S_PREFIX + str(int(n)).zfill(S_DIGITS)


def make_predicates(n, points, domain, seed=SEED):
    """n predicates of each kind. A predicate is a list of (column, lo, hi, hi_inclusive) conjuncts."""
    rnd = random.Random(seed)

    def rng(col, frac):
        lo_d, hi_d = domain[col]
        w = frac * (hi_d - lo_d)
        a = rnd.uniform(lo_d, hi_d - w)
        return (col, a, a + w, False)

    def srng(frac):
        w = frac * S_SPAN
        a = rnd.uniform(0, S_SPAN - w)
        return ("s", fmt_s(a), fmt_s(a + w), False)

    pts = points[:n]
    return {
        "range_x": [[rng("x", 0.01)] for _ in range(n)],
        "range_y": [[rng("y", 0.01)] for _ in range(n)],
        "point_x": [[("x", p["x"], p["x"], True)] for p in pts],
        "point_y": [[("y", p["y"], p["y"], True)] for p in pts],
        "box_xy": [[rng("x", 0.1), rng("y", 0.1)] for _ in range(n)],
        "range_s": [[srng(0.01)] for _ in range(n)],
        "point_s": [[("s", p["s"], p["s"], True)] for p in pts],
        "box_xs": [[rng("x", 0.1), srng(0.1)] for _ in range(n)],
    }


def evaluate(files, predicates):
    """Per kind of predicate, the mean fraction of `files` it must scan; and the files' sizes."""
    out, unsound = {}, 0
    bounds = [(f["min"], f["max"]) for f in files]
    for kind, preds in predicates.items():
        fracs = []
        for conj in preds:
            frac = scanned_fraction(bounds, conj)
            if kind.startswith("point") and frac == 0:
                unsound += 1  # an existing value is in some file: no file at all means a wrong bound
            fracs.append(frac)
        out[kind] = statistics.mean(fracs) if fracs else None
    rows = [f["rows"] for f in files if f["rows"] is not None]
    out.update(files=len(files),
               rows=sum(rows) if rows else None,
               rows_per_file_min=min(rows) if rows else None,
               rows_per_file_max=max(rows) if rows else None,
               points_in_no_file=unsound)
    return out
