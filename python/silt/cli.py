"""The ``silt`` command line: inspect a table, draw its file layout, run Silt SQL.

    python -m silt inspect /data/events
    python -m silt layout /data/events --columns x,y --plot layout.png
    python -m silt sql "OPTIMIZE '/data/events' ZORDER BY (x, y)"

Everything goes through the engine (a local SparkSession with Silt): the CLI never reads the
Delta log itself.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from silt.errors import SiltException
from silt.layout import skipping_score
from silt.sql.check import check


def _session():  # pragma: no cover - starts a JVM
    from pyspark.sql import SparkSession

    import silt

    spark = (silt.configure(SparkSession.builder.master("local[*]").appName("silt-cli"))
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def inspect_table(spark: Any, path: str, history: int = 5) -> Dict[str, Any]:
    """Version, protocol, files, rows, deletion vectors, checkpoint and recent history of a table."""
    from pyspark.sql import functions as F

    from silt.table import SiltTable

    t = SiltTable.for_path(spark, path)
    d = t.detail().first()
    assert d is not None
    f = t.files().agg(
        F.count("*").alias("files"), F.sum("size").alias("bytes"),
        F.sum("numLogicalRecords").alias("rows"), F.sum("numRecords").alias("physical_rows"),
        F.count("deletionVector").alias("deletion_vectors"), F.sum("deletedRows").alias("deleted_rows")).first()
    assert f is not None
    return {
        "path": d["location"], "version": d["version"], "id": d["id"],
        "protocol": {"minReaderVersion": d["minReaderVersion"], "minWriterVersion": d["minWriterVersion"],
                     "features": list(d["tableFeatures"])},
        "partition_columns": list(d["partitionColumns"]), "properties": dict(d["properties"]),
        "files": f["files"], "bytes": f["bytes"] or 0, "rows": f["rows"] or 0,
        "physical_rows": f["physical_rows"] or 0, "deletion_vectors": f["deletion_vectors"],
        "deleted_rows": f["deleted_rows"] or 0, "last_checkpoint": d["lastCheckpointVersion"],
        "history": [{"version": h["version"], "timestamp": str(h["timestamp"]), "operation": h["operation"],
                     "metrics": dict(h["operationMetrics"] or {})} for h in t.history(history).collect()],
    }


def _bounds(stats: Optional[str], column: str) -> Optional[Tuple[float, float]]:
    if not stats:
        return None
    parsed = json.loads(stats)
    lo, hi = parsed.get("minValues", {}), parsed.get("maxValues", {})
    for part in column.split("."):
        lo, hi = (lo or {}).get(part), (hi or {}).get(part)
    if not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
        return None
    return float(lo), float(hi)


def layout(spark: Any, path: str, columns: List[str]) -> Dict[str, Any]:
    """Per-file min/max of two columns and, per column, the skipping score of 1 % ranges."""
    from silt.table import SiltTable

    files = SiltTable.for_path(spark, path).files().select("path", "stats").collect()
    boxes: List[Dict[str, Any]] = []
    for f in files:
        b = [_bounds(f["stats"], c) for c in columns]
        if all(b):
            boxes.append({"path": f["path"], "bounds": b})
    scores = {c: skipping_score([b["bounds"][i] for b in boxes]) for i, c in enumerate(columns)}
    return {"path": path, "columns": columns, "files": len(files), "files_with_stats": len(boxes),
            "skipping_score": scores, "boxes": boxes}


def coverage(boxes: Sequence[Dict[str, Any]], extent: Tuple[float, float, float, float], cells: int = 160) -> Any:
    """How many files' min/max boxes cover each point of a cells x cells grid over `extent` (x0, x1, y0, y1):
    the number of files a query for that one point must read."""
    import numpy as np

    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(cells) + 0.5) * (x1 - x0) / cells
    ys = y0 + (np.arange(cells) + 0.5) * (y1 - y0) / cells
    grid = np.zeros((cells, cells), dtype=np.int32)
    for b in boxes:
        (bx0, bx1), (by0, by1) = b["bounds"]
        grid += np.outer((ys >= by0) & (ys <= by1), (xs >= bx0) & (xs <= bx1))
    return grid


def plot(results: Sequence[Dict[str, Any]], out: str, labels: Optional[Sequence[str]] = None) -> None:  # pragma: no cover - needs matplotlib
    """Draws, for one layout or side by side for several (before and after), how many files cover each
    point of the two columns' plane (one logarithmic colour scale for all panels) under the outlines of
    the files' boxes, with the skipping scores in the titles."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
        from matplotlib.patches import Rectangle
    except ImportError as e:
        raise SystemExit("plotting needs matplotlib: pip install 'silt[plot]'") from e
    every = [b["bounds"] for r in results for b in r["boxes"]]
    if not every:
        raise SystemExit("no file has min/max statistics for both columns: nothing to draw")
    extent = (min(b[0][0] for b in every), max(b[0][1] for b in every),
              min(b[1][0] for b in every), max(b[1][1] for b in every))
    grids = [coverage(r["boxes"], extent) for r in results]
    top = max(int(g.max()) for g in grids)
    fig, axes = plt.subplots(1, len(results), figsize=(6.5 * len(results) + 1.5, 6.5), squeeze=False)
    for i, (ax, r, g) in enumerate(zip(axes[0], results, grids)):
        x, y = r["columns"]
        s = r["skipping_score"]
        # Points no file covers are drawn as the lowest colour (a log scale has no 0).
        image = ax.imshow(g.clip(min=1), origin="lower", extent=extent, aspect="auto", cmap="viridis",
                          norm=LogNorm(vmin=1, vmax=max(top, 2)), interpolation="nearest")
        for b in r["boxes"]:
            (x0, x1), (y0, y1) = b["bounds"]
            ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, lw=0.6, ec="white", alpha=0.5))
        head = f"{labels[i]}\n" if labels else ""
        ax.set_title(f"{head}{r['files_with_stats']} files; a point lies in {g.mean():.1f} of them on average\n"
                     f"a 1% range reads {s[x]:.0%} of the files on {x}, {s[y]:.0%} on {y}", fontsize=10)
        ax.set_xlabel(x)
        ax.set_ylabel(y)
    fig.colorbar(image, ax=list(axes[0]), label="files whose min/max box covers the point (log scale)")
    fig.savefig(out, dpi=100, bbox_inches="tight")
    plt.close(fig)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``python -m silt`` and the ``silt`` script."""
    parser = argparse.ArgumentParser(prog="silt", description="Silt table tools")
    sub = parser.add_subparsers(dest="command", required=True)
    p_inspect = sub.add_parser("inspect", help="version, protocol, files, rows, deletion vectors, history")
    p_inspect.add_argument("path")
    p_inspect.add_argument("--json", action="store_true", help="machine-readable output")
    p_layout = sub.add_parser("layout", help="per-file min/max of two columns and a skipping score")
    p_layout.add_argument("path")
    p_layout.add_argument("--columns", required=True, help="two columns, e.g. x,y")
    p_layout.add_argument("--plot", help="write a picture of the file boxes to this PNG")
    p_layout.add_argument("--json", action="store_true")
    p_sql = sub.add_parser("sql", help="run a statement (Silt statements are syntax-checked first)")
    p_sql.add_argument("statement")
    args = parser.parse_args(argv)

    if args.command == "sql":
        problem = check(args.statement)
        if problem:
            print(problem.render(args.statement), file=sys.stderr)
            return 2
    try:
        spark = _session()
        if args.command == "inspect":
            info = inspect_table(spark, args.path)
            if args.json:
                print(json.dumps(info, indent=2, default=str))
            else:
                _print_inspect(info)
        elif args.command == "layout":
            columns = [c.strip() for c in args.columns.split(",") if c.strip()]
            if len(columns) != 2:
                parser.error("--columns takes exactly two columns")
            result = layout(spark, args.path, columns)
            if args.plot:
                plot([result], args.plot)
            summary = {k: v for k, v in result.items() if k != "boxes"}
            print(json.dumps(summary, indent=2) if args.json else
                  f"{result['files']} files; 1% range skipping score: " +
                  ", ".join(f"{c} reads {s:.1%} of files" for c, s in result["skipping_score"].items()))
        else:
            from silt.errors import reraise
            from silt.progress import ProgressBar
            with ProgressBar(spark):
                answer = reraise(lambda: spark.sql(args.statement))
                rows = reraise(answer.collect)
            if answer.columns:
                spark.createDataFrame(rows, answer.schema).show(truncate=False)
    except SiltException as e:
        print(f"{type(e).__name__}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - an engine or Spark error is shown as a message, not a traceback
        message = engine_error_message(e)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 1
    return 0


def engine_error_message(error: BaseException) -> Optional[str]:
    """A Spark or JVM error as the user should read it (Spark's own text, with its caret for syntax
    errors), or None for an error of the CLI itself."""
    try:
        from py4j.protocol import Py4JJavaError
        from pyspark.errors import PySparkException
    except ImportError:  # pragma: no cover - pyspark is a dependency
        return None
    if isinstance(error, PySparkException):
        return f"{type(error).__name__}: {str(error).strip()}"
    if isinstance(error, Py4JJavaError):
        text = str(error.java_exception.toString())
        return text.split("\n\tat ")[0].strip()
    return None


def _print_inspect(info: Dict[str, Any]) -> None:
    print(f"table      {info['path']}  (version {info['version']})")
    p = info["protocol"]
    print(f"protocol   reader {p['minReaderVersion']}, writer {p['minWriterVersion']}"
          + (f", features {', '.join(p['features'])}" if p["features"] else ""))
    print(f"partitions {', '.join(info['partition_columns']) or '-'}")
    print(f"files      {info['files']:,} ({info['bytes']:,} bytes)")
    print(f"rows       {info['rows']:,} ({info['physical_rows']:,} physical)")
    print(f"deletion   {info['deletion_vectors']} vectors, {info['deleted_rows']:,} deleted rows")
    print(f"checkpoint {info['last_checkpoint'] if info['last_checkpoint'] is not None else '-'}")
    print("history")
    for h in info["history"]:
        print(f"  v{h['version']:<5} {h['timestamp']:<26} {h['operation']}")
