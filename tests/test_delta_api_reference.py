"""The programs in examples/delta_api, their `silt:` changes undone, run on the reference Delta Lake
and pass the same assertions: the rows each asserts after each step are Delta Lake's. Second tier,
on the default Spark minor only (not a smoke test: the reference's Python package is installed in
the default environment)."""
import re

import pytest

from test_delta_api import EXAMPLES


def as_delta_lake(source: str) -> str:
    """A program here as it reads for delta-spark: its `silt:` changes undone."""
    source = re.sub(r"^import silt\b.*$", "", source, flags=re.M)
    source = re.sub(r"\bfrom silt\.delta\b", "from delta", source)
    return re.sub(r"\bsilt\.configure\(([^()]*(?:\([^()]*\))?[^()]*)\)", r"\1", source)


@pytest.mark.reference
@pytest.mark.full  # second tier: runs the reference Delta Lake
def test_the_programs_run_as_written_for_delta_lake_on_the_reference():
    """Each program, its imports and session put back as Delta Lake's, passes its own assertions on
    the reference Delta Lake too: the rows it asserts after each step are Delta Lake's."""
    from test_interop import run_reference
    programs = {p.stem: as_delta_lake(p.read_text()) for p in EXAMPLES}
    for name, code in programs.items():
        assert "silt" not in re.sub(r"#.*|\"\"\"[\s\S]*?\"\"\"", "", code), name
    results = run_reference([{"op": "api", "code": code + "\nresult = 'done'"} for code in programs.values()])
    for name, res in zip(programs, results):
        assert res["ok"] and res["result"] == "'done'", (name, res.get("error"))
