"""The guide's code examples run, and its links lead somewhere.

Links: every relative link and image in README.md and docs/*.md names a file that exists, and a
`#anchor` names a heading of the page it points at (slugged as both mkdocs and GitHub slug a plain
heading, so the link works on the site and on GitHub). No network: web links are not followed.

Examples: every ```python and ```sql block of a page runs, in page order, in one namespace per page
(README.md is a page too). An SQL block runs statement by statement (split on a `;` ending a line).
A block right after a line `<!-- not-run: why -->` is skipped and listed (it needs what a test
here has not got, such as an S3 bucket or a cluster); one right after `<!-- needs-spark 4.1: why -->` runs
on that Spark minor and later only (it uses what older ones lack); ```bash and other blocks are not run.

Each page starts from what docs/index.md ("Conventions") promises its examples:
- `spark`: the test session (conftest.py);
- `path`: a folder for a table, which does not exist yet;
- `tmp`: an empty folder, for anything else (checkpoints, clones, Parquet folders);
- `df`: 6 rows of (id BIGINT, day INT, city STRING), days 24 to 26;
- `updates`: 2 rows of the same columns, id 1 (a row of df, in another city) and id 7 (a new one).
A page runs in a database of its own (its `events`, `daily`, ... meet no other page's and no other
test's), which is dropped afterwards with the page's temporary views, streams and settings.
"""
import re
import time
import unicodedata
from pathlib import Path

import pytest

from conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"
PAGES = [REPO_ROOT / "README.md"] + sorted(DOCS.glob("*.md"))
NOT_RUN = re.compile(r"^<!-- not-run: (?P<why>\S.*?) -->$")
NEEDS_SPARK = re.compile(r"^<!-- needs-spark (?P<minor>\d+\.\d+): (?P<why>\S.*?) -->$")
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\s*$")
RUN_LANGS = ("python", "sql")
# Not-run blocks are meant to stay few: each is an example no test checks.
MAX_NOT_RUN = 12


def blocks(page: Path):
    """(language, first line number, code, why-not-run or None, the Spark minor it needs or None) of each fenced block."""
    out = []
    lines = page.read_text().split("\n")
    i = 0
    why = None
    needs = None
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if fence:
            start = i + 1
            end = start
            while end < len(lines) and lines[end].rstrip() != "```":
                end += 1
            assert end < len(lines), f"{page.name}:{i + 1}: a code block that is never closed"
            out.append((fence.group("lang"), start + 1, "\n".join(lines[start:end]), why, needs))
            why = None
            needs = None
            i = end + 1
            continue
        marker = NOT_RUN.match(lines[i].strip())
        if lines[i].strip():
            why = marker.group("why") if marker else None
            needs_marker = NEEDS_SPARK.match(lines[i].strip())
            needs = tuple(int(x) for x in needs_marker.group("minor").split(".")) if needs_marker else None
        i += 1
    return out


def test_not_run_markers_stand_before_a_runnable_block_and_are_few():
    skipped = []
    for page in PAGES:
        text = page.read_text()
        markers = len(re.findall(r"<!-- not-run:", text))
        marked = [(b[0], b[1], b[3]) for b in blocks(page) if b[3] is not None]
        assert markers == len(marked), f"{page.name}: a not-run marker that is not right before a code block"
        for lang, line, why in marked:
            assert lang in RUN_LANGS, f"{page.name}:{line}: not-run on a {lang!r} block, which is never run anyway"
            skipped.append(f"{page.relative_to(REPO_ROOT)}:{line} ({lang}): {why}")
    print("\nblocks not run:\n  " + "\n  ".join(skipped))
    assert len(skipped) <= MAX_NOT_RUN, "\n".join(skipped)


# ---- links ---------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")


def prose(text: str) -> str:
    """The page without its code blocks and inline code (a link inside code is not a link)."""
    text = re.sub(r"^```.*?^```\s*$", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def plain(heading: str) -> str:
    """A heading's text as rendered: no code marks, emphasis or link syntax."""
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return heading.replace("`", "").replace("*", "")


def mkdocs_slug(text: str) -> str:
    # Python-Markdown's toc.slugify, mkdocs' default
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def github_slug(text: str) -> str:
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path):
    """The anchors a page's headings get, as (mkdocs', GitHub's)."""
    text = re.sub(r"^```.*?^```\s*$", "", page.read_text(), flags=re.S | re.M)
    heads = [plain(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*$", text, re.M)]
    return {mkdocs_slug(h) for h in heads}, {github_slug(h) for h in heads}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_lead_somewhere(page):
    broken = []
    for m in LINK.finditer(prose(page.read_text())):
        target = m.group("target")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:: not followed
            continue
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / file_part).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
            continue
        if anchor:
            if dest.suffix != ".md":
                broken.append(f"{target}: an anchor into a file that is not a page")
                continue
            ours, githubs = anchors(dest)
            if anchor not in ours or anchor not in githubs:
                broken.append(f"{target}: no heading of {dest.name} has that anchor")
    assert not broken, f"{page.relative_to(REPO_ROOT)}:\n  " + "\n  ".join(broken)


# ---- examples ------------------------------------------------------------------------------------

def sql_statements(code: str):
    text = "\n".join(line for line in code.split("\n") if not line.strip().startswith("--"))
    for statement in re.split(r";\s*(?:\n|$)", text):
        if statement.strip():
            yield statement.strip()


def page_namespace(spark, tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    schema = "id BIGINT, day INT, city STRING"
    df = spark.createDataFrame(
        [(1, 24, "Paris"), (2, 24, "Lyon"), (3, 25, "Paris"), (4, 25, "Nice"), (5, 25, "Lyon"), (6, 26, "Paris")],
        schema)
    updates = spark.createDataFrame([(1, 24, "Nantes"), (7, 26, "Lille")], schema)
    return {"__name__": "__docs__", "spark": spark, "path": str(tmp_path / "events"), "tmp": str(tmp),
            "df": df, "updates": updates}


RUNNABLE = [p for p in PAGES if any(b[0] in RUN_LANGS and b[3] is None for b in blocks(p))]


def session_settings(spark):
    """The session's explicitly set settings (`SET` lists them; pyspark 3.5 has no RuntimeConfig.getAll)."""
    return {r.key: r.value for r in spark.sql("SET").collect()}


# The pages whose examples `make test` runs (the quick start and the short pages, a slice); the others' take
# 10 s to 45 s each and run in the second tier.
FIRST_TIER_PAGES = {"README.md", "index.md", "quickstart.md", "storage.md", "uniform.md"}


@pytest.mark.parametrize("page", [p if p.name in FIRST_TIER_PAGES else pytest.param(p, marks=pytest.mark.full)
                                  for p in RUNNABLE], ids=lambda p: p.name)
def test_examples_run(spark, tmp_path, page):
    database = "docs_" + re.sub(r"\W", "_", page.stem.lower())
    conf_before = session_settings(spark)
    views_before = {t.name for t in spark.catalog.listTables() if t.isTemporary}
    spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
    spark.sql(f"CREATE DATABASE {database}")
    spark.sql(f"USE {database}")
    namespace = page_namespace(spark, tmp_path)
    ran = 0
    timings = []
    started = time.monotonic()
    try:
        running = tuple(int(x) for x in spark.version.split(".")[:2])
        for lang, line, code, why, needs in blocks(page):
            if why is not None or lang not in RUN_LANGS or (needs is not None and running < needs):
                continue
            where = f"{page.relative_to(REPO_ROOT)}:{line}"
            block_started = time.monotonic()
            if lang == "python":
                # padded so that a traceback's line numbers are the page's
                exec(compile("\n" * (line - 1) + code, str(page.relative_to(REPO_ROOT)), "exec"), namespace)
            else:
                for statement in sql_statements(code):
                    try:
                        spark.sql(statement).collect()
                    except Exception as e:
                        raise AssertionError(f"{where}: {statement}\n{e}") from e
            ran += 1
            timings.append(f"{line}: {time.monotonic() - block_started:.1f} s")
    finally:
        for query in spark.streams.active:
            query.stop()
        spark.sql("USE default")
        spark.sql(f"DROP DATABASE IF EXISTS {database} CASCADE")
        for t in spark.catalog.listTables():
            if t.isTemporary and t.name not in views_before:
                spark.catalog.dropTempView(t.name)
        conf_after = session_settings(spark)
        for key, value in conf_after.items():
            if key not in conf_before:
                spark.conf.unset(key)
            elif conf_before[key] != value:
                spark.conf.set(key, conf_before[key])
    print(f"\n{page.name}: {ran} blocks in {time.monotonic() - started:.1f} s (line: time) {', '.join(timings)}")


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda p: p.name)
def test_nested_lists_are_indented_by_four(page):
    # The site's Markdown (Python-Markdown) flattens a list item indented by 2 spaces into its parent list.
    text = re.sub(r"^```.*?^```\s*$", "", page.read_text(), flags=re.S | re.M)
    shallow = [line for line in text.split("\n") if re.match(r"^ {1,3}[-*] ", line)]
    assert not shallow, f"{page.name}: indent nested list items by 4 spaces:\n" + "\n".join(shallow)
