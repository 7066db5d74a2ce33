"""TPC-DS for the lakehouse benchmark: the data and the queries (DuckDB's `tpcds` extension, loaded
from its package file), each table's layout, and one round of data maintenance (TPC-DS's refresh
functions, as MERGE and DELETE statements).

The data of a scale factor is generated once, as Parquet under build/tpcds/sf<SF>/ (git-ignored),
with the queries Spark SQL is given and the dates the rounds use (meta.json). Every engine loads the
same files and runs the same statement texts.
"""
import glob
import json
import os
import re
from pathlib import Path

from bench.common import REPO_ROOT, rm, say

DATA_ROOT = REPO_ROOT / "build" / "tpcds"
PARQUET_FILE_BYTES = 64_000_000  # DuckDB's output split into files of about this size, so Spark reads them in parallel

# Fact table -> its date key (the layout's clustering column and what a refresh deletes by) and its
# primary key (what a refresh's MERGE matches on).
FACTS = {
    "store_sales": ("ss_sold_date_sk", ("ss_item_sk", "ss_ticket_number")),
    "store_returns": ("sr_returned_date_sk", ("sr_item_sk", "sr_ticket_number")),
    "catalog_sales": ("cs_sold_date_sk", ("cs_item_sk", "cs_order_number")),
    "catalog_returns": ("cr_returned_date_sk", ("cr_item_sk", "cr_order_number")),
    "web_sales": ("ws_sold_date_sk", ("ws_item_sk", "ws_order_number")),
    "web_returns": ("wr_returned_date_sk", ("wr_item_sk", "wr_order_number")),
    "inventory": ("inv_date_sk", ("inv_date_sk", "inv_item_sk", "inv_warehouse_sk")),
}
# A sales channel: its sales and returns tables, and the order number that ties a return to its sale.
CHANNELS = (
    ("store_sales", "store_returns", "ss_ticket_number", "sr_ticket_number"),
    ("catalog_sales", "catalog_returns", "cs_order_number", "cr_order_number"),
    ("web_sales", "web_returns", "ws_order_number", "wr_order_number"),
)
# A round's windows, in days from the first date of sales, moving on by ROUND_STRIDE each round:
# the sales (and their returns) of INSERT_DAYS days come again as new orders; those of UPDATE_DAYS
# days (and inventory of the same days) are restated; DELETE_DAYS days of sales, their returns and
# inventory are deleted (TPC-DS's DF_SS, DF_CS, DF_WS, DF_I).
FIRST_DAY, ROUND_STRIDE = 365, 61
INSERT_DAYS, UPDATE_DAYS, DELETE_DAYS = 7, 2, 7
ORDER_OFFSET = 1_000_000_000  # added, times the round, to a re-inserted order's number: a new order


def data_dir(sf):
    """Where scale factor `sf`'s Parquet files and meta.json live."""
    return DATA_ROOT / f"sf{sf:g}"


def extension_file():
    """The tpcds extension's file in the duckdb-extension-tpcds package (no download at run time)."""
    import duckdb_extension_tpcds
    pkg = os.path.dirname(duckdb_extension_tpcds.__file__)
    files = sorted(glob.glob(os.path.join(pkg, "**", "*.duckdb_extension"), recursive=True))
    if not files:
        raise FileNotFoundError(f"no .duckdb_extension file under {pkg}: reinstall duckdb-extension-tpcds")
    return files[-1]


def spark_text(query):
    """A TPC-DS query as DuckDB's extension gives it, in Spark SQL's dialect: double-quoted names
    (column aliases such as "order count") become back-quoted, and the closing semicolon goes."""
    text = re.sub(r'"([^"]+)"', r"`\1`", query.strip())
    return text[:-1].rstrip() if text.endswith(";") else text


def generate(sf):
    """Generates scale factor `sf` once (a second call finds it) and returns its meta.json's content."""
    folder = data_dir(sf)
    meta_file = folder / "meta.json"
    if meta_file.exists():
        return json.loads(meta_file.read_text())
    import duckdb
    rm(folder)
    folder.mkdir(parents=True)
    say(f"  generating TPC-DS at scale factor {sf:g} into {folder}")
    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.execute(f"LOAD '{extension_file()}'")
    con.execute(f"CALL dsdgen(sf={sf:g})")
    tables = [r[0] for r in con.execute("SHOW TABLES").fetchall()]
    rows = {}
    for t in tables:
        con.execute(f"COPY {t} TO '{folder / t}' (FORMAT parquet, FILE_SIZE_BYTES {PARQUET_FILE_BYTES})")
        rows[t] = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    columns = {t: [r[0] for r in con.execute(f"DESCRIBE {t}").fetchall()] for t in tables}
    first = con.execute("SELECT min(ss_sold_date_sk) FROM store_sales").fetchone()[0]
    queries = {f"q{n}": spark_text(q) for n, q in con.execute("SELECT query_nr, query FROM tpcds_queries()").fetchall()}
    meta = {"sf": sf, "tables": tables, "rows": rows, "columns": columns, "first_sale_date_sk": first, "queries": queries}
    meta_file.write_text(json.dumps(meta, indent=1, sort_keys=True))
    return meta


def create_statement(table, source, props, clustered):
    """CREATE TABLE … AS SELECT of one table from its generated files: a fact table clustered by
    its date key and written in its order (LST-Bench's layout), deletion vectors per `props`."""
    date_key = FACTS.get(table, (None,))[0] if clustered else None
    cluster = f" CLUSTER BY ({date_key})" if date_key else ""
    order = f" ORDER BY {date_key}" if date_key else ""
    tblprops = ", ".join(f"'{k}' = '{v}'" for k, v in sorted(props.items()))
    return (f"CREATE TABLE {table} USING delta{cluster} TBLPROPERTIES ({tblprops}) "
            f"AS SELECT * FROM parquet.`{source}`{order}")


def windows(meta, round_no):
    """Round `round_no`'s (first, last) date keys of its insert, update and delete windows."""
    start = meta["first_sale_date_sk"] + FIRST_DAY + (round_no - 1) * ROUND_STRIDE
    ins = (start, start + INSERT_DAYS - 1)
    upd = (ins[1] + 1, ins[1] + UPDATE_DAYS)
    dele = (upd[1] + 1, upd[1] + DELETE_DAYS)
    return {"insert": ins, "update": upd, "delete": dele}


def maintenance(meta, round_no, data):
    """Round `round_no`'s data maintenance as [(name, sql)], in order: per channel, a MERGE of new and
    restated sales, then of their returns; a MERGE restating inventory; then the deletes of a date
    window (returns of the window's sales first, then the sales, then inventory). The sources are
    the generated files (`data`), so that every engine merges the same rows whatever its table holds."""
    w = windows(meta, round_no)
    off = ORDER_OFFSET * round_no
    src = lambda t: f"parquet.`{data / t}`"
    cols = lambda t, col, new, alias="": ", ".join(f"{alias}{c}" if c != col else f"{new} AS {c}" for c in meta["columns"][t])
    between = lambda col, win: f"{col} BETWEEN {win[0]} AND {win[1]}"
    steps = []
    for sales, returns, s_order, r_order in CHANNELS:
        s_date, s_key = FACTS[sales]
        r_date, r_key = FACTS[returns]
        qty = s_key[0][:3] + "quantity"  # ss_quantity, cs_quantity, ws_quantity
        s_new = (f"SELECT {cols(sales, s_order, f'{s_order} + {off}')} FROM {src(sales)} WHERE {between(s_date, w['insert'])} "
                 f"UNION ALL SELECT {cols(sales, qty, f'{qty} + 1')} FROM {src(sales)} WHERE {between(s_date, w['update'])}")
        r_new = (f"SELECT {cols(returns, r_order, f'r.{r_order} + {off}', 'r.')} FROM {src(returns)} r "
                 f"LEFT SEMI JOIN {src(sales)} s ON r.{r_order} = s.{s_order} AND s.{between(s_date, w['insert'])}")
        steps.append((f"merge {sales}", merge(sales, s_new, s_key)))
        steps.append((f"merge {returns}", merge(returns, r_new, r_key)))
    i_date, i_key = FACTS["inventory"]
    steps.append(("merge inventory", merge("inventory", f"SELECT {cols('inventory', 'inv_quantity_on_hand', 'inv_quantity_on_hand + 1')} "
                                                        f"FROM {src('inventory')} WHERE {between(i_date, w['update'])}", i_key)))
    for sales, returns, s_order, r_order in CHANNELS:
        s_date = FACTS[sales][0]
        # Delta Lake takes no subquery in a DELETE's condition: the returns of the window's sales go by a MERGE.
        steps.append((f"delete {returns}", f"MERGE INTO {returns} t USING (SELECT DISTINCT {s_order} FROM {sales} "
                                           f"WHERE {between(s_date, w['delete'])}) s ON t.{r_order} = s.{s_order} "
                                           "WHEN MATCHED THEN DELETE"))
        steps.append((f"delete {sales}", f"DELETE FROM {sales} WHERE {between(s_date, w['delete'])}"))
    steps.append(("delete inventory", f"DELETE FROM inventory WHERE {between(i_date, w['delete'])}"))
    return steps


def merge(table, source_sql, key):
    """An upsert of `source_sql`'s rows into `table`, matched on its primary key."""
    on = " AND ".join(f"t.{k} = s.{k}" for k in key)
    return (f"MERGE INTO {table} t USING ({source_sql}) s ON {on} "
            "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
