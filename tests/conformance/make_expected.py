"""Writes expected/<table>.json for every table of MANIFEST.json, from two readers that must agree.

The readers are delta-rs (its DataFusion reader, which applies deletion vectors) and the reference
Delta Lake (delta-spark, in a process of its own: tests/interop/reference_delta.py). Each reads
every table at its latest version and at the versions the manifest lists; rows are rendered with
canon.py. A table's file is written only where the two agree on columns and rows; a table of kind
expect_error must be refused by both. Where the manifest records that the reference engine reads a
version wrong (`reference_engine_differs`, with the reason), delta-rs's rows are taken there, and
the generator checks that the reference still differs (so the note goes when the reference is fixed). Run from the repository with the development environment:

    .venv/bin/python tests/conformance/make_expected.py           # (re)writes expected/
    .venv/bin/python tests/conformance/make_expected.py --check   # compares with expected/, writes nothing

It exits non-zero when the readers disagree, or (--check) when a file differs from what they say.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "interop")]

import canon  # noqa: E402
import corpus  # noqa: E402

REFERENCE_TIMEOUT_S = 1800


def rendered(table, columns: List[str]) -> Dict[str, Any]:
    rows, _ = canon.render_table(table, columns)
    return {"columns": columns, "num_rows": len(rows), "rows": rows, "digest": canon.digest(rows)}


def read_delta_rs(path: Path, version: Optional[int]) -> Dict[str, Any]:
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder
    dt = DeltaTable(str(path), version=version)
    columns = [f.name for f in dt.schema().fields]
    table = pa.table(QueryBuilder().register("t", dt).execute("SELECT * FROM t").read_all())
    return rendered(table, columns)


def read_reference(reads: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Every read in one reference-engine process; each result has ok, and columns/rows or error."""
    import reference_delta
    if reference_delta.DELTA_PACKAGE is None:
        raise SystemExit("no reference Delta Lake release for this pyspark: use the development environment")
    return reference_delta.call(reads, HERE / "canon.py", REFERENCE_TIMEOUT_S)


def try_delta_rs(path: Path, version: Optional[int]) -> Dict[str, Any]:
    try:
        return {"ok": True, **read_delta_rs(path, version)}
    except Exception as e:  # noqa: BLE001 - a refusal is a result here
        return {"ok": False, "error": f"{type(e).__name__}: {e}"[:400]}


def agree(name: str, a: Dict[str, Any], b: Dict[str, Any]) -> Optional[str]:
    """None when both readers returned the same columns and rows, else what differs."""
    if not (a["ok"] and b["ok"]):
        return f"{name}: delta-rs {a.get('error', 'ok')}; reference {b.get('error', 'ok')}"
    if a["columns"] != b["columns"]:
        return f"{name}: columns {a['columns']} (delta-rs) != {b['columns']} (reference)"
    if a["digest"] != b["digest"]:
        only_a = [r for r in a["rows"] if r not in b["rows"]][:5]
        only_b = [r for r in b["rows"] if r not in a["rows"]][:5]
        return f"{name}: rows differ; delta-rs only {only_a}; reference only {only_b}"
    return None


def expected_file(entry, results) -> Dict[str, Any]:
    if entry["kind"] == "expect_error":
        return {"table": entry["name"], "expect_error": True, "why": entry["why"],
                "reference_errors": {who: r.get("error", "(read it)") for who, r in results[None].items()}}
    latest = results[None]["delta-rs"]
    out: Dict[str, Any] = {"table": entry["name"], "version": results["latest_version"],
                           **{k: latest[k] for k in ("num_rows", "columns", "rows", "digest")}}
    if entry.get("versions"):
        out["versions"] = {str(v): {k: results[v]["delta-rs"][k] for k in ("num_rows", "columns", "rows", "digest")}
                           for v in entry["versions"]}
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with expected/, write nothing")
    args = parser.parse_args(argv)
    root = corpus.corpus_dir()
    entries = corpus.manifest(root)
    problems: List[str] = []
    with tempfile.TemporaryDirectory(prefix="silt-expected-") as scratch:
        jobs = []  # (entry, version, path)
        for entry in entries:
            path = corpus.prepare(entry, Path(scratch), root)
            for version in [None, *entry.get("versions", [])]:
                jobs.append((entry, version, path))
        reference = read_reference([{"op": "read", "path": str(p), "version": v} for _, v, p in jobs])
        by_table: Dict[str, Dict[Any, Any]] = {}
        for (entry, version, path), ref in zip(jobs, reference):
            res = by_table.setdefault(entry["name"], {})
            res[version] = {"delta-rs": try_delta_rs(path, version), "reference": ref}
            if version is None and entry["kind"] == "data":
                from deltalake import DeltaTable
                res["latest_version"] = DeltaTable(str(path)).version()
    for entry in entries:
        res = by_table[entry["name"]]
        found = len(problems)
        if entry["kind"] == "expect_error":
            for who, r in res[None].items():
                if r["ok"]:
                    problems.append(f"{entry['name']}: {who} read a table that must be refused")
        else:
            known = entry.get("reference_engine_differs", {}).get("at", [])
            for version in [None, *entry.get("versions", [])]:
                label = version if version is not None else "latest"
                diff = agree(f"{entry['name']} @ {label}", res[version]["delta-rs"], res[version]["reference"])
                if label in known:
                    print(f"known: {diff or entry['name'] + ' @ ' + str(label) + ': the reference now agrees'}")
                    if diff is None or not res[version]["delta-rs"]["ok"]:
                        problems.append(f"{entry['name']} @ {label}: listed as reference_engine_differs, "
                                        "but the reference agrees (or delta-rs failed)")
                elif diff:
                    problems.append(diff)
        if len(problems) > found:
            continue  # no expected file where the readers do not agree
        want = expected_file(entry, res)
        target = root / entry["expected"]
        if args.check:
            have = json.loads(target.read_text()) if target.is_file() else None
            strip = lambda d: {k: v for k, v in (d or {}).items() if k != "reference_errors"}
            if strip(have) != strip(want):
                problems.append(f"{entry['name']}: {target.name} differs from what both readers return")
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(want, ensure_ascii=False, indent=1) + "\n")
    for p in problems:
        print("DIFFERS:", p)
    print(f"{len(entries)} tables, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
