"""The benchmarks, in the order `python -m bench` runs them: each is the module bench/<name>.py,
with parser() (its flags), main(argv) (runs it in the calling process, writes
bench/results/<name>.json and returns that result) and summary_rows(result) (its rows of the
closing table)."""
import importlib

# The long-standing order (OPTIMIZE first, write and skipping last), then the newer ones.
BENCHMARKS = ("optimize", "dv", "checkpoint_open", "checkpoint_write", "checkpoint_million",
              "write", "skipping", "peers", "commits", "column_mapping", "streaming", "clustering", "vacuum", "table_features",
              "small_files", "concurrent_dml", "log_scale", "json_log", "lakehouse", "uniform")
# Names that stand for several benchmarks on the command line.
GROUPS = {"checkpoint": ("checkpoint_open", "checkpoint_write", "checkpoint_million")}


def module(name):
    """The module of one benchmark."""
    if name not in BENCHMARKS:
        raise KeyError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"bench.{name}")
