"""The guide's performance figures match their result files (bench/figures.py; no Spark, a second or so).

- Every generated block (`<!-- figures:NAME -->` ... `<!-- /figures:NAME -->`) is what
  `python -m bench.figures` renders from the current bench/results/*.json: a new result fails
  here until the pages are regenerated.
- Outside those blocks README.md and docs/*.md quote no performance figure: a scan for speed-up
  ratios, durations, rates, sizes of heap and shares of files read, with a short allow-list of
  numbers that look like figures and are not.
- Each block names the run behind it as its result file records it: date, commit, jar.
"""
import copy
import hashlib
import re
import sys

import pytest

from conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT))
from bench import figures  # noqa: E402

REGENERATE = "run `python -m bench.figures` to regenerate the blocks from bench/results/"

# What a performance figure looks like in prose.
FIGURE_PATTERNS = {
    "a ratio": r"\b\d+(?:\.\d+)?x\b",
    "a duration": r"\b\d+(?:[.,]\d+)?(?:\s*(?:-|–|to)\s*\d+(?:\.\d+)?)?\s?(?:ms|s|sec|seconds?|min|minutes?|hours?)\b"
                  r"(?!\s+by\s+default)",
    "a throughput": r"\b(?:files|rows|commits|statements|bytes|KB|MB|GB|KiB|MiB|GiB)\s?/\s?s\b",
    "a rate": r"\b\d[\d,.]*\s+(?:\w+\s+){0,2}(?:a|an|per)\s+(?:second|minute|hour)\b",
    "a size": r"\b\d+(?:\.\d+)?\s?(?:KB|MB|GB|KiB|MiB|GiB)\b",
    "a share of files read": r"\b(?:0\.\d+|\d+(?:\.\d+)?%)\s+of\s+(?:the\s+|its\s+)?files\b",
    "a fraction, as shares of files are written": r"\b0\.\d{3}\b",
    "a share of attempts": r"\b\d+(?:\.\d+)?%\s+of\s+(?:the\s+|its\s+)?(?:attempts|statements|commits)\b"
                           r"|\bfail(?:s|ed)?\s+\d+(?:\.\d+)?%",
    "a comparison": r"\b\d+(?:\.\d+)?(?:x|%)?\s+(?:faster|slower|quicker|less\s+time|more\s+time)\b",
}

# (page, text, why it is no performance figure). Each must still match somewhere (see below).
ALLOWED = [
    ("docs/clustering.md", "below 100 GiB",
     "the size below which the reference's clustering reclusters the whole table: its behaviour, not a measurement"),
    ("docs/storage.md", "the 686 MB SDK bundle", "the size of a download Silt leaves out, not a measurement"),
    ("docs/development.md", "a 5 s soak", "the length tier 1 gives the soak test: a setting"),
    ("docs/development.md", "a 15 s soak", "the length tier 2 gives the soak test: a setting"),
    ("docs/development.md", "under 15 minutes", "the time budget of `make test`, not a benchmark of the engine"),
    ("docs/development.md", "under 50 minutes", "the time budget of CI's two tiers, not a benchmark of the engine"),
    ("docs/uniform.md", "up to 60 s", "how long the JVM's exit waits for conversions in progress: a setting, not a measurement"),
    ("docs/development.md", "in seconds: 40 minutes", "the budget after which CI leaves test-heavy out, not a benchmark of the engine"),
]


def relative(page):
    return page.relative_to(REPO_ROOT).as_posix()


def prose(text):
    """A page's text where figures may not be: no generated blocks, code blocks, inline code or
    comments (each left as its newlines, so that line numbers stay the page's)."""
    def blank(m):
        return "\n" * m.group(0).count("\n")
    text = figures.BLOCK.sub(blank, text)
    text = re.sub(r"^```.*?^```\s*$", blank, text, flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"<!--.*?-->", blank, text, flags=re.S)


def figures_in(text):
    """(kind, matched text, line, span) of what looks like a performance figure in prose."""
    out = []
    for kind, pattern in FIGURE_PATTERNS.items():
        for m in re.finditer(pattern, text):
            out.append((kind, m.group(0), text.count("\n", 0, m.start()) + 1, m.span()))
    return out


def allowed(page, text, span):
    """Whether the figure at `span` lies inside an allow-listed phrase of `page` (wrapped or not)."""
    for p, phrase, _why in ALLOWED:
        words = r"\s+".join(map(re.escape, phrase.split()))
        if p == page and any(m.start() <= span[0] and span[1] <= m.end() for m in re.finditer(words, text)):
            return True
    return False


@pytest.mark.parametrize("figure", figures.FIGURES, ids=lambda f: f.name)
def test_each_block_is_what_its_result_files_render(figure):
    text = (REPO_ROOT / figure.page).read_text()
    found = [m.group("body") for m in figures.BLOCK.finditer(text) if m.group("name") == figure.name]
    assert len(found) == 1, f"{figure.page}: block {figure.name!r} found {len(found)} times, expected once"
    assert found[0] == figures.rendered(figure) + "\n", (
        f"{figure.page}: block {figure.name!r} differs from {', '.join(figure.sources)}; {REGENERATE}")


def test_no_stale_unpaired_or_undeclared_block():
    problems = figures.problems()
    assert not problems, "\n".join(problems + [REGENERATE])


def test_a_changed_result_makes_its_block_stale(monkeypatch):
    load = figures.load

    def changed(source):
        result = copy.deepcopy(load(source))
        if source == "peers.json":
            result["median_seconds"]["scan"]["silt"] *= 1.5
        return result
    monkeypatch.setattr(figures, "load", changed)
    assert [p for p in figures.problems() if "'peers'" in p and "stale" in p]


@pytest.mark.parametrize("page", figures.pages(), ids=relative)
def test_no_performance_figure_outside_a_generated_block(page):
    rel = relative(page)
    text = prose(page.read_text())
    loose = [f"{rel}:{line}: {kind} {match!r}" for kind, match, line, span in figures_in(text)
             if not allowed(rel, text, span)]
    assert not loose, ("performance figures outside a generated block: quote them from a result file "
                       "through a block of bench/figures.py (or, for a number that is no performance figure, "
                       "reword it or add it to ALLOWED with the reason):\n  " + "\n  ".join(loose))


def test_the_allow_list_is_still_needed():
    for page, phrase, why in ALLOWED:
        text = prose((REPO_ROOT / page).read_text())
        assert phrase in " ".join(text.split()), f"{page}: {phrase!r} ({why}) is no longer there: drop it from ALLOWED"
        assert figures_in(phrase), f"{phrase!r} matches no pattern: drop it from ALLOWED"


def test_the_scan_finds_the_figures_it_is_meant_to():
    # the kinds of figure the pages quoted by hand before bench/figures.py
    for sample in ["4.9x faster", "0.39 s", "2.5 minutes", "149 statements a minute", "13,200 files/s",
                   "under 130 MiB of heap", "reads 0.140 of the files", "fails 73% of its attempts",
                   "0.3-0.5 s", "25% of the files", "took 140 s",
                   "fails 73% of its\nattempts", "| 0.140 / 0.130 / 0.048 |"]:
        assert figures_in(sample), sample
    for sample in ["Spark 3.5 and 4.0 to 4.3", "delta-spark 4.4", "a 1% range", "0.1% of the rows",
                   "8 x 8 grid", "x 2^(n-1) (at most x 1024)", "10 M rows in 64 files", "Python 3.11",
                   "(24 hours by default)"]:
        assert not figures_in(sample), sample


@pytest.mark.parametrize("figure", figures.FIGURES, ids=lambda f: f.name)
def test_each_block_names_the_run_of_each_of_its_result_files(figure):
    text = (REPO_ROOT / figure.page).read_text()
    body = " ".join(figures.blocks_on(text).get(figure.name, "").split())
    for source in figure.sources:
        env = figures.environment_of(figures.load(source))
        lines = re.split(r"(?=From `bench/results/)", body)
        line = next((s for s in lines if s.startswith(f"From `bench/results/{source}`")), None)
        assert line, f"{figure.page}: block {figure.name!r} has no source line for bench/results/{source}; {REGENERATE}"
        when, commit, jar = env.get("when"), env.get("git_commit"), env.get("silt_jar")
        assert (f"{when[:10]} {when[11:16]} UTC" if when else "date not recorded") in line, line
        assert (f"commit {commit}" if commit else "commit not recorded") in line, line
        if jar:
            assert f"jar {jar['name']}" in line and (not jar.get("sha256_12") or jar["sha256_12"] in line), line
        else:
            assert "jar not recorded" in line, line


def test_the_readme_claims_faster_only_where_every_operation_is():
    readme = (REPO_ROOT / "README.md").read_text()
    if "faster than the reference" not in prose(readme):
        return
    medians = figures.load("peers.json")["median_seconds"]
    slower = {op: m["delta"] / m["silt"] for op, m in medians.items() if m["silt"] >= m["delta"]}
    assert not slower, (f"README.md says Silt is faster than the reference, but peers.json has it slower on "
                        f"{slower}: reword the section")


def test_benchmarks_record_the_jar_silt_configure_loads(monkeypatch, tmp_path):
    import silt
    from bench.common import environment
    jar = tmp_path / "silt-spark_9.9_2.13-0.1.0.jar"
    jar.write_bytes(b"not the newest jar in the folder")
    monkeypatch.setattr(silt, "jar_path", lambda *a: jar)
    env = environment()
    assert env["silt_jar"]["name"] == jar.name
    assert env["silt_jar"]["sha256_12"] == hashlib.sha256(jar.read_bytes()).hexdigest()[:12]
