"""The conformance corpus: its manifest, its expected results, and scratch copies of its tables.

The corpus is this folder (tables/, expected/, MANIFEST.json); SILT_CONFORMANCE_DIR may point at
a larger one laid out the same way. Tests and make_expected.py read tables only through
`prepare`, which copies a table out first: nothing ever writes into the corpus.
"""
from __future__ import annotations

import json
import os
import shutil
import urllib.parse
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent


def corpus_dir() -> Path:
    """The corpus in use: SILT_CONFORMANCE_DIR when set, else the one in the repository."""
    env = os.environ.get("SILT_CONFORMANCE_DIR")
    return Path(env).expanduser().resolve() if env else HERE


def manifest(root: Path | None = None) -> List[Dict[str, Any]]:
    """The manifest's table entries (name, kind, features, expected, source, versions, template, why)."""
    return json.loads(((root or corpus_dir()) / "MANIFEST.json").read_text())["tables"]


def expected(entry: Dict[str, Any], root: Path | None = None) -> Dict[str, Any]:
    """A table's expected result (see README.md: columns, rows, digest, versions; or expect_error)."""
    return json.loads(((root or corpus_dir()) / entry["expected"]).read_text())


def copy_tree(src: Path, dst: Path) -> Path:
    """Copies a table to a scratch folder, writable (the corpus may be checked out read-only)."""
    shutil.copytree(src, dst, symlinks=False, copy_function=shutil.copyfile)
    for folder, _, files in os.walk(dst):
        os.chmod(folder, 0o755)
        for f in files:
            os.chmod(os.path.join(folder, f), 0o644)
    return dst


def prepare(entry: Dict[str, Any], scratch: Path, root: Path | None = None) -> Path:
    """A copy of the entry's table under `scratch`, its template (if any) filled in.

    A template's placeholder stands for the absolute, percent-encoded path of a folder of the copy
    (the log names a deletion vector by absolute path); the edited file's .crc is dropped."""
    table = copy_tree((root or corpus_dir()) / "tables" / entry["name"], scratch / entry["name"])
    tpl = entry.get("template")
    if tpl:
        encoded = urllib.parse.quote(str((table / tpl["folder"]).resolve()), safe="/&")
        target = table / tpl["file"]
        target.write_text(target.read_text().replace(tpl["placeholder"], encoded))
        crc = target.parent / f".{target.name}.crc"
        if crc.exists():
            crc.unlink()
    return table
