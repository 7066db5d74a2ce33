"""The canonical rendering of a Delta table's rows: the one way every conformance check compares tables.

Each non-null leaf value becomes a string, null stays None, structs become objects, arrays lists
and maps lists of [key, value] pairs (sorted by their key's canonical JSON). Rows are lists in the
given column order, sorted by their canonical JSON; the digest is the SHA-256 of the canonical
JSON of the sorted rows. README.md in this folder gives the rules per type with examples.

`render_table(arrow_table, columns) -> (rows, keys)`, `digest(rows)` and `canonical_json(x)` are
what the tests, the reference-engine subprocess and make_expected.py call; a Spark DataFrame
becomes an Arrow table with `arrow_table(df)`.
"""
from __future__ import annotations

import datetime as _dt
import decimal as _decimal
import hashlib
import json
from typing import Any, Callable, List, Sequence, Tuple

import pyarrow as pa

_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_DAYS_PER_400_YEARS = 146097  # the Gregorian calendar repeats every 400 years, to the weekday
_MICROS_PER_DAY = 86_400_000_000


def arrow_table(df: Any) -> pa.Table:
    """A Spark DataFrame's rows as an Arrow table (an Arrow table as it is): `toArrow` on pyspark 4; on
    pyspark 3.5, which has no `toArrow`, the Arrow batches its `toPandas` collects."""
    if isinstance(df, pa.Table):
        return df
    if hasattr(df, "toArrow"):
        return df.toArrow()
    from pyspark.sql.pandas.types import to_arrow_schema
    batches = df._collect_as_arrow()
    return pa.Table.from_batches(batches) if batches else to_arrow_schema(df.schema).empty_table()


def canonical_json(value: Any) -> str:
    """The JSON text rows are sorted and hashed by: no spaces, sorted keys, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def digest(rows: Sequence[Any]) -> str:
    """Lowercase hex SHA-256 of the canonical JSON of the (already sorted) rows."""
    return hashlib.sha256(canonical_json(list(rows)).encode("utf-8")).hexdigest()


def _civil(days: int) -> Tuple[int, int, int]:
    """(year, month, day) in the proleptic Gregorian calendar for a count of days since 1970-01-01.

    Python's date covers years 1 to 9999 only; days outside are moved by whole 400-year cycles into
    that range, and the cycles are taken off the year again."""
    ordinal = days + _EPOCH_ORDINAL
    cycles = 0
    while ordinal < 1:
        ordinal += _DAYS_PER_400_YEARS
        cycles -= 1
    while ordinal > _dt.date.max.toordinal():
        ordinal -= _DAYS_PER_400_YEARS
        cycles += 1
    d = _dt.date.fromordinal(ordinal)
    return d.year + 400 * cycles, d.month, d.day


def _year(y: int) -> str:
    return f"{y:04d}" if 0 <= y <= 9999 else f"{'-' if y < 0 else '+'}{abs(y):04d}"


def _date_text(days: int) -> str:
    y, m, d = _civil(days)
    return f"{_year(y)}-{m:02d}-{d:02d}"


def _timestamp_text(micros: int, zone_suffix: str) -> str:
    days, rest = divmod(micros, _MICROS_PER_DAY)
    seconds, fraction = divmod(rest, 1_000_000)
    hh, rem = divmod(seconds, 3600)
    mm, ss = divmod(rem, 60)
    return f"{_date_text(days)}T{hh:02d}:{mm:02d}:{ss:02d}.{fraction:06d}{zone_suffix}"


def _float_text(x: float) -> str:
    # repr is the shortest text that reads back to the same double, positional for 1e-4 <= |x| < 1e16.
    return repr(float(x))


_WIDE = _decimal.Context(prec=200)  # decimal(38, s) has more digits than the default context keeps


def _decimal_text(value: _decimal.Decimal, scale: int) -> str:
    return format(value.quantize(_decimal.Decimal(1).scaleb(-scale), context=_WIDE), "f")


_TO_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1}


def _micros(value: int, unit: str) -> int:
    if unit == "ns":
        return value // 1_000
    return value * _TO_MICROS[unit]


def _render(arr: pa.Array) -> List[Any]:
    """Renders every element of one Arrow array (a column or a nested child)."""
    t = arr.type
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * len(arr)

    def leaf(values: List[Any], fmt: Callable[[Any], Any]) -> List[Any]:
        return [fmt(v) if ok else None for v, ok in zip(values, valid)]

    if pa.types.is_dictionary(t):
        return _render(arr.dictionary_decode())
    if pa.types.is_null(t):
        return [None] * len(arr)
    if pa.types.is_boolean(t):
        return leaf(arr.to_pylist(), lambda v: "true" if v else "false")
    if pa.types.is_integer(t):
        return leaf(arr.to_pylist(), str)
    if pa.types.is_floating(t):
        return leaf(arr.cast(pa.float64()).to_pylist(), _float_text)
    if pa.types.is_decimal(t):
        return leaf(arr.to_pylist(), lambda v: _decimal_text(v, t.scale))
    if pa.types.is_string(t) or pa.types.is_large_string(t) or getattr(pa.types, "is_string_view", lambda _: False)(t):
        return leaf(arr.cast(pa.string()).to_pylist(), lambda v: v)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t) \
            or getattr(pa.types, "is_binary_view", lambda _: False)(t):
        return leaf(arr.to_pylist(), lambda v: bytes(v).hex())
    if pa.types.is_date32(t):
        return leaf(arr.cast(pa.int32()).to_pylist(), _date_text)
    if pa.types.is_date64(t):
        return leaf(arr.cast(pa.int64()).to_pylist(), lambda ms: _date_text(ms // 86_400_000))
    if pa.types.is_timestamp(t):
        suffix = "Z" if t.tz is not None else ""  # an instant (TIMESTAMP) or a wall-clock time (TIMESTAMP_NTZ)
        return leaf(arr.cast(pa.int64()).to_pylist(), lambda v: _timestamp_text(_micros(v, t.unit), suffix))
    if pa.types.is_struct(t):
        names = [t.field(i).name for i in range(t.num_fields)]
        children = [_render(child) for child in arr.flatten()]
        return [dict(zip(names, values)) if ok else None for ok, *values in zip(valid, *children)]
    if pa.types.is_map(t):
        pairs = arr.values  # the entries of every map, keys and items, unsliced
        keys, items = (_render(child) for child in pairs.flatten())
        offsets = arr.offsets.to_pylist()
        out: List[Any] = []
        for i, ok in enumerate(valid):
            if not ok:
                out.append(None)
                continue
            entries = [[keys[j], items[j]] for j in range(offsets[i], offsets[i + 1])]
            out.append(sorted(entries, key=lambda e: canonical_json(e[0])))
        return out
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        if pa.types.is_fixed_size_list(t):
            elements = _render(arr.flatten())
            size = t.list_size
            return [elements[i * size:(i + 1) * size] if ok else None for i, ok in enumerate(valid)]
        elements = _render(arr.values)
        offsets = arr.offsets.to_pylist()
        return [elements[offsets[i]:offsets[i + 1]] if ok else None for i, ok in enumerate(valid)]
    raise TypeError(f"no canonical rendering for Arrow type {t}")


def render_table(table: pa.Table, columns: Sequence[str]) -> Tuple[List[List[Any]], List[str]]:
    """The table's rows rendered in the order of `columns`, sorted; and their canonical JSON keys."""
    rendered = [_render(table.column(name).combine_chunks()) if table.num_rows else [] for name in columns]
    rows = [list(r) for r in zip(*rendered)] if columns else [[] for _ in range(table.num_rows)]
    rows.sort(key=canonical_json)
    return rows, [canonical_json(r) for r in rows]
