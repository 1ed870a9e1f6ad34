"""The APK table's largest rows: built alone (integers over each class's scale) they equal the
first rows of every row built and sorted exactly, ties in row order."""

from __future__ import annotations

from functools import cmp_to_key

import pytest

from verifier.notions.partial.cases import LazyRows, largest_rows
from verifier.specs.check import parse_spec

SPEC = {
    "data": {"records": 400, "values": [0, 1], "prior": ["9/10", "1/10"]},
    "mechanism": {"kind": "threshold_count", "counts": [1], "threshold": 40},
    "attacker": {"target": 399, "known": list(range(100))},  # 101 classes: 0 … 100 ones
    "query": {"epsilon": "ln(2)", "delta": "1/1000", "notions": ["apkdp", "ppkdp"]},
}


def _rows(epsilon: str = "ln(2)"):
    from verifier.specs.check import run_spec

    spec = dict(SPEC, query=dict(SPEC["query"], epsilon=epsilon))
    return run_spec(parse_spec(spec)).results["apkdp"].details


def _key(row: dict) -> tuple:
    return (row["background"], row["values"], row["holds"], row["delta"], row["probability"])


@pytest.mark.parametrize("epsilon", ["ln(2)", "ln(11/10)", "1/3"])
@pytest.mark.parametrize("k", [1, 10, 101, 500])
def test_the_top_rows_are_the_first_rows_of_the_exact_sort(epsilon, k):
    lazy = _rows(epsilon)
    assert isinstance(lazy, LazyRows) and len(lazy) == 101
    top = lazy.top(k)  # before any row is built: the integer route (or, at ε = 1/3, the rows)
    everything = list(_rows(epsilon))
    ordered = sorted(everything, key=cmp_to_key(lambda x, y: y["delta"].compare(x["delta"])))
    assert [_key(r) for r in top] == [_key(r) for r in ordered[:k]]
    assert [_key(r) for r in largest_rows(tuple(everything), k)] == [_key(r) for r in top]
