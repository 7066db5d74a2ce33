"""Silt benchmarks: ratios measured side by side in one run, each benchmark in a JVM of its own.

    python -m bench                                  every benchmark, in the registry's order
    python -m bench write skipping                   only these
    python -m bench write --rows 2000000 dv --rows 1000000 --reps 2
                                                     flags go after the name they belong to
    python -m bench peers --help                     one benchmark's flags

Names: optimize, dv, checkpoint_open, checkpoint_write, checkpoint_million, write, skipping, peers,
commits, … lakehouse (bench/registry.py has them all)
(`checkpoint` = the three checkpoint ones). Each benchmark runs in a child process, one at a time,
writes bench/results/<name>.json and adds its rows to the table printed at the end. Scratch tables
go to bench/results/tmp/ (ignored by git), removed at the end.
"""
import sys
import time

from bench import registry
from bench.common import SCRATCH_DIR, rm, say, table_lines
from bench.runner import ChildFailed, call


def split_argv(argv):
    """[name, flags..., name, flags...] -> [(name, [flags])]; no names at all means every benchmark."""
    groups = []
    for token in argv:
        if token in registry.BENCHMARKS or token in registry.GROUPS:
            groups += [(name, []) for name in registry.GROUPS.get(token, (token,))]
        elif groups:
            groups[-1][1].append(token)
        else:
            raise SystemExit(f"{token!r} is not a benchmark (known: {', '.join(registry.BENCHMARKS)}, "
                             f"{', '.join(registry.GROUPS)}); its flags go after its name")
    return groups or [(name, []) for name in registry.BENCHMARKS]


def main(argv=None):
    """Runs the benchmarks named in argv, one child process each, and prints the closing table."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    groups = split_argv(argv)
    for name, args in groups:  # every benchmark's flags checked before the first JVM starts
        registry.module(name).parser().parse_args(args)
    t0 = time.perf_counter()
    results = []
    try:
        for name, args in groups:
            say(f"{name}:")
            try:
                results.append(call(f"bench.{name}:main", args, name))
            except ChildFailed as e:
                say(f"  FAILED: {e}")
                results.append({"benchmark": name, "error": str(e).splitlines()[0]})
    finally:
        rm(SCRATCH_DIR)
    rows = [("benchmark", "measure", "value")]
    for r in results:
        rows += ([(r["benchmark"], "FAILED", r["error"])] if "error" in r
                 else registry.module(r["benchmark"]).summary_rows(r))
    print()
    print("\n".join(table_lines(rows)))
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
