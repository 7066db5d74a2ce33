"""How well a table's file layout lets a predicate skip files, judged from each file's per-column
min/max statistics alone. One implementation for ``silt layout`` and the benchmarks (bench/).
"""
from __future__ import annotations

import random
from typing import Any, Iterable, Mapping, Sequence, Tuple

# One conjunct of a predicate: (column, lo, hi, hi_inclusive), i.e. lo <= column < hi, or
# lo <= column <= hi when hi_inclusive (a point is (c, v, v, True)).
Conjunct = Tuple[str, Any, Any, bool]
# One file's statistics: (min by column, max by column); a column missing from either has none.
FileBounds = Tuple[Mapping[str, Any], Mapping[str, Any]]


def must_scan(mins: Mapping[str, Any], maxs: Mapping[str, Any], conjuncts: Iterable[Conjunct]) -> bool:
    """Whether a file with these min/max values may hold a row that satisfies every conjunct."""
    for col, lo, hi, inclusive in conjuncts:
        mn, mx = mins.get(col), maxs.get(col)
        if mn is None or mx is None:
            continue  # no statistics: this conjunct cannot skip the file
        if mx < lo or (mn > hi if inclusive else mn >= hi):
            return False
    return True


def scanned_fraction(files: Sequence[FileBounds], conjuncts: Sequence[Conjunct]) -> float:
    """The fraction of `files` that a predicate (a conjunction) must scan; 1.0 for no files."""
    if not files:
        return 1.0
    return sum(1 for mins, maxs in files if must_scan(mins, maxs, conjuncts)) / len(files)


def skipping_score(boxes: Sequence[Tuple[float, float]], selectivity: float = 0.01, trials: int = 200,
                   seed: int = 7) -> float:
    """Mean fraction of files a range predicate covering `selectivity` of the value span must read."""
    if not boxes:
        return 1.0
    lo, hi = min(b[0] for b in boxes), max(b[1] for b in boxes)
    width = (hi - lo) * selectivity
    files = [({"c": b[0]}, {"c": b[1]}) for b in boxes]
    rnd = random.Random(seed)
    total = 0.0
    for _ in range(trials):
        a = lo + rnd.random() * max(hi - lo - width, 0.0)
        total += scanned_fraction(files, [("c", a, a + width, True)])
    return total / trials
