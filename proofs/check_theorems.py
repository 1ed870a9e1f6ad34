"""Run every theorem record on its whole family, and on Hypothesis-generated instances.

Under pytest, or without it: ``python -m proofs``.
"""

import sys
from itertools import product
from pathlib import Path

if not __package__:  # loaded as a script: make the ``proofs`` package importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.families import Instance
from proofs.record import Theorem
from proofs.registry import RECORDS, SAMPLED, outcome
from verifier import Dist, independent, mechanism


@pytest.mark.parametrize("theorem", RECORDS, ids=[t.name for t in RECORDS])
@pytest.mark.slow
@pytest.mark.xdist_group("theorems")  # the worker that renders docs/theorems.md from them
def test_theorem_on_family(theorem: Theorem):
    """Each record once per process (the registry keeps the result for docs/theorems.md)."""
    tally, status, _ = outcome(theorem)
    assert status in ("holds", "refuted, as the seeds say"), (
        f"{theorem.name}: {status}; first failures: {[str(f) for f in tally.failures]}")


@st.composite
def random_instances(draw):
    k = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(2, 3))
    values = list(range(k))

    def dist(support):
        w = draw(st.lists(st.integers(0, 5), min_size=len(support), max_size=len(support))
                 .filter(lambda x: sum(x) > 0))
        return Dist({s: f"{x}/{sum(w)}" for s, x in zip(support, w, strict=True)})

    priors = [dist(values) for _ in range(n)]
    table = {db: dist(("x", "y", "z", BOTTOM_)) for db in product(values, repeat=n)}
    target = draw(st.integers(0, n - 1))
    others = [j for j in range(n) if j != target]
    known = tuple(sorted(draw(st.lists(st.sampled_from(others), unique=True))))
    return Instance(independent(priors, values), mechanism(lambda db: table[db], "random"),
                    target, known)


BOTTOM_ = "⊥"


@pytest.mark.parametrize("theorem", SAMPLED, ids=[t.name for t in SAMPLED])
@settings(max_examples=40, deadline=None)
@given(inst=random_instances())
@pytest.mark.slow
def test_theorem_on_random_instances(theorem: Theorem, inst: Instance):
    """Sampled instances (never counted as proofs): the record must not fail on any."""
    assert theorem.check(inst) is not False, f"{theorem.name} fails on {inst}"
