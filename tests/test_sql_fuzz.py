"""Fuzzes the Python SQL checker (`silt sql`): any text either passes or yields one syntax problem
whose position lies inside the statement, and rendering it never fails. Budget: SILT_FUZZ_CASES."""
import os

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from silt.sql.check import check

CASES = int(os.environ.get("SILT_FUZZ_CASES", "300"))
TOKENS = ["OPTIMIZE", "ZORDER", "BY", "VACUUM", "RETAIN", "HOURS", "DRY", "RUN", "REORG", "TABLE", "APPLY", "(PURGE)",
          "CHECKPOINT", "RESTORE", "TO", "VERSION", "AS", "OF", "TIMESTAMP", "DESCRIBE", "DESC", "HISTORY", "DETAIL",
          "FILES", "LIMIT", "WHERE", "t", "`a b`", "'/p'", "silt.`/x`", "1", "-3", "1e400", "(", ")", ",", ";", "=",
          "'", "`", "\n", "\u00e9", "--", "/*"]
statements = st.one_of(st.lists(st.sampled_from(TOKENS), max_size=12).map(" ".join), st.text(max_size=60))


@settings(max_examples=CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statements)
@example("OPTIMIZE \n")  # a problem on the line after a trailing newline
def test_checker_never_crashes(sql):
    problem = check(sql)
    if problem is not None:
        lines = sql.splitlines() or [""]
        assert 1 <= problem.line <= max(len(lines), 1) + 1
        assert problem.column >= 0
        assert "^" in problem.render(sql)
