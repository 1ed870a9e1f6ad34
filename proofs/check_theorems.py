"""Run every theorem record on its whole family, and on Hypothesis-generated instances."""

from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier import Dist, independent, mechanism

from .families import Instance
from .theorems import THEOREMS, Theorem


@pytest.mark.parametrize("theorem", THEOREMS, ids=[t.name for t in THEOREMS])
def test_theorem_on_family(theorem: Theorem):
    failures = []
    count = 0
    for inst in theorem.family():
        count += 1
        if not theorem.check(inst):
            failures.append(inst)
    assert count > 0, "empty family"
    if theorem.expected:
        assert not failures, f"{theorem.name} fails on {failures[0]}"
    else:
        assert failures, f"{theorem.name}: no counterexample in {count} instances"


@st.composite
def random_instances(draw):
    k = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(2, 3))
    values = list(range(k))

    def dist(support):
        w = draw(st.lists(st.integers(0, 5), min_size=len(support), max_size=len(support))
                 .filter(lambda x: sum(x) > 0))
        return Dist({s: f"{x}/{sum(w)}" for s, x in zip(support, w)})

    priors = [dist(values) for _ in range(n)]
    table = {db: dist(("x", "y", "z", BOTTOM_)) for db in product(values, repeat=n)}
    target = draw(st.integers(0, n - 1))
    others = [j for j in range(n) if j != target]
    known = tuple(sorted(draw(st.lists(st.sampled_from(others), unique=True))))
    return Instance(independent(priors, values), mechanism(lambda db: table[db], "random"),
                    target, known)


BOTTOM_ = "⊥"
GENERAL = [t for t in THEOREMS if t.expected and t.family.__name__ == "partial_knowledge_family"]


@pytest.mark.parametrize("theorem", GENERAL, ids=[t.name for t in GENERAL])
@settings(max_examples=60, deadline=None)
@given(inst=random_instances())
def test_theorem_on_random_instances(theorem: Theorem, inst: Instance):
    assert theorem.check(inst), f"{theorem.name} fails on {inst}"
