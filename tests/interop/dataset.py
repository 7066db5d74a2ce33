"""The interop data set: every primitive Delta type, with nulls, written in three commits.

Shared by the pytest side (tests/test_interop.py) and the reference-Delta subprocess
(tests/interop/reference_delta.py), so that every writer writes exactly the same rows and
every reader is compared against the same expected rows. Plain Python only (no pyspark or
pyarrow import at module level), so that both processes can import it cheaply.

Commits:
  v0  append   BATCHES[0]   (p in {0, 1, null})
  v1  append   BATCHES[1]   (p in {1, 2})
  v2  overwrite with replaceWhere "p = 1"  BATCHES[2]  (all p = 1)

Value choices, and why some are left out:
- Timestamps stay inside 1677-09-21 .. 2262-04-11. Spark (Silt and the reference Delta
  alike) writes TIMESTAMP as Parquet INT96 by default, which arrow-rs (delta-rs, and the
  kernel that DuckDB's extension uses) reads as nanoseconds; instants outside that range
  would overflow in those readers no matter who wrote them. Dates have no such limit and
  go from 0001-01-01 to 9999-12-31.
- No NaN / infinities in float or double: JSON statistics cannot hold them, and the
  readers disagree on how to treat them in stats; this file tests type fidelity, not that.
"""
import datetime as _dt
from decimal import Decimal as _D

PARTITION_BY = ["p"]
REPLACE_WHERE = "p = 1"

# (name, Spark SQL type, pyarrow type constructor name + args). `p` sits in the middle on
# purpose: partition columns keep their place in the table schema.
COLUMNS = [
    ("id", "INT"),
    ("b", "TINYINT"),
    ("s", "SMALLINT"),
    ("p", "INT"),
    ("l", "BIGINT"),
    ("f", "FLOAT"),
    ("d", "DOUBLE"),
    ("dec_small", "DECIMAL(10,2)"),
    ("dec_big", "DECIMAL(38,18)"),
    ("str", "STRING"),
    ("bin", "BINARY"),
    ("flag", "BOOLEAN"),
    ("dt", "DATE"),
    ("ts", "TIMESTAMP"),
    ("ts_ntz", "TIMESTAMP_NTZ"),
]
COLUMN_NAMES = [c for c, _ in COLUMNS]
SPARK_DDL = ", ".join(f"`{c}` {t}" for c, t in COLUMNS)

_UTC = _dt.timezone.utc


def _ts(*a):
    return _dt.datetime(*a, tzinfo=_UTC)


def _row(i, p, variant):
    """One row; `variant` changes values so that the overwritten rows differ from the old ones."""
    k = i * 7 + variant
    if i % 5 == 4:  # every fifth row: all non-key columns null
        return (i, None, None, p, None, None, None, None, None, None, None, None, None, None, None)
    return (
        i,
        [-128, 127, 0, 1, -1][k % 5],
        [-32768, 32767, 0, 12, -7][k % 5],
        p,
        [-9223372036854775808, 9223372036854775807, 0, 10**12 + k, -k][k % 5],
        [1.5, -0.25, 3.4028234663852886e38, 1.401298464324817e-45, 36.504][k % 5],
        [0.1, -2.5e-300, 1.7976931348623157e308, 1e16, -0.0][k % 5],
        [_D("0.00"), _D("-1.50"), _D("99999999.99"), _D("-99999999.99"), _D(f"{k}.{k % 100:02d}")][k % 5],
        [_D("0E-18"), _D("12345678901234567890.123456789012345678"),
         _D("-99999999999999999999.999999999999999999"), _D("0.000000000000000001"),
         _D(f"-{k}.5")][k % 5],
        ["", "plain", "héllo ☃ \"quoted\" \\ back", "line\nbreak\ttab", f"v{variant}-{i}"][k % 5],
        [b"", b"\x00\xff", b"silt", bytes(range(16)), bytes([k % 256])][k % 5],
        [True, False][k % 2],
        [_dt.date(1970, 1, 1), _dt.date(2024, 2, 29), _dt.date(1, 1, 1), _dt.date(9999, 12, 31),
         _dt.date(1582, 10, 4)][k % 5],
        [_ts(1970, 1, 1), _ts(2024, 6, 1, 12, 34, 56, 789012), _ts(1969, 12, 31, 23, 59, 59, 999999),
         _ts(1900, 1, 1, 0, 0, 0, 1), _ts(2262, 4, 1, 23, 59, 59)][k % 5],
        [_dt.datetime(1971, 2, 27, 22, 8, 24, 200), _dt.datetime(2000, 1, 1),
         _dt.datetime(1960, 6, 15, 1, 2, 3, 4), _dt.datetime(2200, 12, 31, 23, 59, 59, 999999),
         _dt.datetime(2024, 2, 29, 12, 0)][k % 5],
    )


BATCHES = [
    [_row(i, None if i == 11 else i % 2, 0) for i in range(0, 12)],  # v0: p in {0, 1, null}
    [_row(i, 1 + i % 2, 1) for i in range(12, 24)],            # v1: p in {1, 2}
    [_row(i, 1, 2) for i in range(100, 110)],                  # v2: replaces p = 1
]


def rows_at_version(v):
    """The rows a reader must return at version v (0, 1 or 2)."""
    if v == 0:
        return list(BATCHES[0])
    if v == 1:
        return BATCHES[0] + BATCHES[1]
    if v == 2:
        p_idx = COLUMN_NAMES.index("p")
        kept = [r for r in BATCHES[0] + BATCHES[1] if r[p_idx] != 1]
        return kept + BATCHES[2]
    raise ValueError(v)


VERSIONS = [0, 1, 2]


def arrow_schema():
    import pyarrow as pa
    t = {
        "INT": pa.int32(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "BIGINT": pa.int64(),
        "FLOAT": pa.float32(), "DOUBLE": pa.float64(), "DECIMAL(10,2)": pa.decimal128(10, 2),
        "DECIMAL(38,18)": pa.decimal128(38, 18), "STRING": pa.string(), "BINARY": pa.binary(),
        "BOOLEAN": pa.bool_(), "DATE": pa.date32(), "TIMESTAMP": pa.timestamp("us", tz="UTC"),
        "TIMESTAMP_NTZ": pa.timestamp("us"),
    }
    return pa.schema([pa.field(c, t[ty]) for c, ty in COLUMNS])


def arrow_table(rows):
    import pyarrow as pa
    schema = arrow_schema()
    cols = list(zip(*rows)) if rows else [[] for _ in COLUMNS]
    return pa.table([pa.array(list(col), type=f.type) for col, f in zip(cols, schema)], schema=schema)


def spark_df(spark, rows):
    return spark.createDataFrame(rows, schema=SPARK_DDL)
