"""The performance figures of README.md and docs/*.md, rendered from the results in bench/results/.

Each Figure below is one block of a page, between `<!-- figures:NAME -->` and
`<!-- /figures:NAME -->`: the markdown its render function makes from its result files, then one
line per file naming the run (date, commit, jar) that produced it. A page quotes no performance
figure outside such a block (tests/test_figures.py checks both).

    python -m bench.figures           rewrites every block in place from the current results
    python -m bench.figures --check   lists the blocks that differ from their results (exit 1)

Reads JSON only: no Spark, no benchmark run.
"""
import argparse
import json
import re
import sys
from dataclasses import dataclass
from typing import Callable, Tuple

from bench import figures_render as render
from bench.common import REPO_ROOT, RESULTS_DIR

PAGES = ("README.md", "docs")  # the pages that may quote figures: README.md and docs/*.md
# A block's body is whole lines (empty in a block not generated yet), each ending in a newline.
BLOCK = re.compile(r"<!-- figures:(?P<name>[\w-]+) -->\n(?P<body>(?:.*?\n)??)<!-- /figures:(?P=name) -->", re.S)
MARKER = re.compile(r"<!-- /?figures:(?P<name>[^ ]*) -->")


@dataclass(frozen=True)
class Figure:
    """One generated block: its page, its result files (relative to bench/results/) and how it reads them."""
    name: str
    page: str
    sources: Tuple[str, ...]
    render: Callable  # (*results) -> markdown, without the source lines


FIGURES = (
    Figure("peers", "README.md", ("peers.json",), render.peers),
    Figure("concurrent-dml", "README.md", ("concurrent_dml.json",), render.concurrent_dml),
    Figure("clustering-summary", "README.md", ("clustering.json",), render.clustering_summary),
    Figure("clustering", "docs/clustering.md", ("clustering.json",), render.clustering_table),
    Figure("zorder-layout", "docs/optimizations.md", ("optimize.json",), render.zorder_layout),
    Figure("log-scale", "docs/optimizations.md",
           ("log_scale.json", "archive/log_scale_10m_delete_partition.json"), render.log_scale),
    Figure("json-log", "docs/optimizations.md", ("json_log.json",), render.json_log),
    Figure("change-feed-merge", "docs/streaming.md", ("streaming.json",), render.change_feed_merge),
    Figure("s3-faults", "docs/reliability.md", ("s3_faults.json",), render.s3_faults),
    Figure("lakehouse-summary", "README.md", ("lakehouse.json",), render.lakehouse_summary),
    Figure("lakehouse", "docs/lakehouse.md", ("lakehouse.json",), render.lakehouse),
)


def load(source):
    """The result file bench/results/<source>, parsed."""
    return json.loads((RESULTS_DIR / source).read_text())


def environment_of(result):
    """The run's recorded environment (`environment`; `env` in older files), or {} when it has none."""
    return result.get("environment") or result.get("env") or {}


def source_line(source, result):
    """The line naming the file and the run behind a block: date, commit, jar, as the file records them."""
    env = environment_of(result)
    when = env.get("when")
    parts = [f"run of {when[:10]} {when[11:16]} UTC" if when else "date not recorded",
             f"commit {env['git_commit']}" if env.get("git_commit") else "commit not recorded"]
    jar = env.get("silt_jar")
    if jar:
        sha = f" (sha256 {jar['sha256_12']})" if jar.get("sha256_12") else ""
        parts.append(f"jar {jar['name']}{sha}")
    else:
        parts.append("jar not recorded")
    if env.get("spark"):
        parts.append(f"Spark {env['spark']}")
    if env.get("cpus"):
        parts.append(f"{env['cpus']} CPUs")
    line = f"From `bench/results/{source}`: " + ", ".join(parts) + "."
    minor = re.match(r"silt-spark_(\d+\.\d+)_", (jar or {}).get("name", ""))
    if minor and env.get("spark") and not env["spark"].startswith(minor.group(1) + "."):
        # bench/common.py once recorded the last jar by name, whichever the run loaded
        line += (f" That is the last jar in python/silt/jars by name, which the benchmarks recorded then; "
                 f"Spark {env['spark']} loads silt-spark_{'.'.join(env['spark'].split('.')[:2])}_*, whose hash "
                 "was not recorded.")
    return line


def rendered(figure):
    """The body of a figure's block from the current result files: its markdown, then its source lines."""
    results = [load(s) for s in figure.sources]
    body = figure.render(*results).strip("\n")
    sources = "\n\n".join(render.para(source_line(s, r)) for s, r in zip(figure.sources, results))
    return f"{body}\n\n{sources}"


def block(name, body):
    """A block as it stands on its page, markers included."""
    return f"<!-- figures:{name} -->\n{body}\n<!-- /figures:{name} -->"


def pages():
    """The pages that may quote figures, as paths."""
    return [REPO_ROOT / "README.md"] + sorted((REPO_ROOT / "docs").glob("*.md"))


def blocks_on(text):
    """{name: body} of the generated blocks in a page's text."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def problems():
    """What is wrong with the blocks on the pages: stale, missing, duplicated or undeclared ones."""
    declared = {f.name: f for f in FIGURES}
    out = []
    for page in pages():
        rel = page.relative_to(REPO_ROOT).as_posix()
        text = page.read_text()
        names = [m.group("name") for m in BLOCK.finditer(text)]
        markers = [m.group("name") for m in MARKER.finditer(text)]
        if len(markers) != 2 * len(names):
            out.append(f"{rel}: a figures marker without its pair (each block is "
                       "`<!-- figures:NAME -->` ... `<!-- /figures:NAME -->`)")
        for name in names:
            if name not in declared:
                out.append(f"{rel}: block {name!r} is declared nowhere in bench/figures.py")
            elif declared[name].page != rel:
                out.append(f"{rel}: block {name!r} belongs on {declared[name].page}")
    for f in FIGURES:
        text = (REPO_ROOT / f.page).read_text()
        found = [m.group("body") for m in BLOCK.finditer(text) if m.group("name") == f.name]
        if len(found) != 1:
            out.append(f"{f.page}: block {f.name!r} found {len(found)} times, expected once")
        elif found[0] != rendered(f) + "\n":
            out.append(f"{f.page}: block {f.name!r} differs from {', '.join(f.sources)} (stale)")
    return out


def rewrite():
    """Rewrites every declared block in place; returns the pages changed (none when a block is missing)."""
    texts = {page: (REPO_ROOT / page).read_text() for page in sorted({f.page for f in FIGURES})}
    missing = [f for f in FIGURES if f.name not in blocks_on(texts[f.page])]
    if missing:
        raise SystemExit("\n".join(f"{f.page}: no block {f.name!r}: put `<!-- figures:{f.name} -->` and "
                                   f"`<!-- /figures:{f.name} -->` (each on a line of its own) where it goes"
                                   for f in missing))
    bodies = {f.name: rendered(f) for f in FIGURES}
    changed = []
    for page, text in texts.items():
        new = BLOCK.sub(lambda m: block(m.group("name"), bodies[m.group("name")]) if m.group("name") in bodies
                        else m.group(0), text)
        if new != text:
            (REPO_ROOT / page).write_text(new)
            changed.append(page)
    return changed


def draw_pictures():
    """Draws the pictures the pages show from their result files (not compared by --check: a PNG's
    bytes depend on the matplotlib that drew it)."""
    from bench import lakehouse
    if (RESULTS_DIR / "lakehouse.json").exists():
        lakehouse.plot(load("lakehouse.json"), lakehouse.PLOT)


def main(argv=None):
    """Rewrites the blocks, or with --check lists the stale ones and exits 1."""
    ap = argparse.ArgumentParser(prog="python -m bench.figures", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; list stale blocks, exit 1 if any")
    args = ap.parse_args(argv)
    if args.check:
        found = problems()
        for p in found:
            print(p)
        if found:
            print("run `python -m bench.figures` to regenerate them from bench/results/")
        return 1 if found else 0
    changed = rewrite()
    draw_pictures()
    print("rewritten: " + (", ".join(changed) if changed else "nothing (every block is current)"))
    rest = problems()
    for p in rest:
        print(p)
    return 1 if rest else 0


if __name__ == "__main__":
    sys.exit(main())
