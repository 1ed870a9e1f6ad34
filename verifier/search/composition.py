"""Conjectures about composition under partial knowledge, on small instances.

Two mechanisms run on the same database with independent randomness are one mechanism whose
output is the pair: ``(M_1 ⊗ M_2)(D)[(o_1, o_2)] = M_1(D)[o_1] · M_2(D)[o_2]`` (REFERENCE.md
§9). An :class:`~verifier.search.small.Instance` whose outputs are pairs and whose laws are
such products is a *composition instance*; its parts are the two marginal tables. The
predicates below read the parts off the instance (an instance that is not a product — a
shrinking move may merge outputs — is no counterexample), so the search, Hypothesis and the
minimisation of :mod:`verifier.search.conjectures` apply unchanged.

Each statement compares the composition at ``E² = e^{2ε}`` with its parts at ``E = e^ε``
(the instance's rate): δ of the composition at ``ε_1 + ε_2`` against ``δ_1(ε_1) + δ_2(ε_2)``,
as DP's basic composition theorem has it. The differencing pair — the count of every record
and the count of every record but the target — is the classical attack on noiseless privacy:
each release alone hides the target, the two together reveal it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import replace
from itertools import combinations, product
from typing import cast

from gmpy2 import mpq

from verifier.search.small import Instance, law
from verifier.search.small_families import build

__all__ = ["parts", "adds_up", "runs_add_up", "composition_family", "repeated_family",
           "repeated_strategy", "composition_report", "pair_mechanism"]

Table = Callable[[tuple], dict]
_NOTIONS = {"apk": "apk", "ppk": "ppk", "noiseless": "noiseless"}


def pair_mechanism(m1: Table, m2: Table) -> Table:
    """``D ↦ M_1(D) ⊗ M_2(D)``: the outputs of both, with independent randomness."""
    def both(db: tuple) -> dict:
        return {(o1, o2): mpq(p1) * mpq(p2) for o1, p1 in m1(db).items()
                for o2, p2 in m2(db).items()}
    return both


def parts(inst: Instance) -> tuple[Instance, Instance] | None:
    """The two parts of a composition instance, or None when its laws are not products of
    their marginals (or its outputs not pairs)."""
    first, second = [], []
    for db, row in inst.mechanism:
        if not all(isinstance(o, tuple) and len(o) == 2 for o, _ in row):
            return None
        m1: dict = {}
        m2: dict = {}
        pairs: list[tuple[Hashable, Hashable, mpq]] = []
        for o, p in row:
            o1, o2 = cast(tuple, o)
            pairs.append((o1, o2, p))
            m1[o1] = m1.get(o1, 0) + p
            m2[o2] = m2.get(o2, 0) + p
        if any(p != m1[o1] * m2[o2] for o1, o2, p in pairs) or len(row) != len(m1) * len(m2):
            return None
        first.append((db, law(m1)))
        second.append((db, law(m2)))
    return (replace(inst, mechanism=tuple(first)), replace(inst, mechanism=tuple(second)))


def composition_report(inst: Instance) -> dict[str, mpq]:
    """The δs the statements compare: each part at ε, the composition at 2ε."""
    split = parts(inst)
    out: dict[str, mpq] = {}
    if split is None:
        return dict(inst.deltas)
    both = replace(inst, rate=inst.rate ** 2)
    for key in _NOTIONS:
        out[f"{key}_first"] = split[0].deltas[key]
        out[f"{key}_second"] = split[1].deltas[key]
        out[f"{key}_composed"] = both.deltas[key]
    return out


def adds_up(notion: str) -> Callable[[Instance], bool]:
    """δ(M_1 ⊗ M_2; 2ε) ≤ δ(M_1; ε) + δ(M_2; ε) for ``notion`` (apk, ppk, noiseless)."""
    def holds(inst: Instance) -> bool:
        split = parts(inst)
        if split is None:
            return True
        both = replace(inst, rate=inst.rate ** 2)
        return both.deltas[notion] <= split[0].deltas[notion] + split[1].deltas[notion]
    return holds


def runs_add_up(notion: str) -> Callable[[Instance], bool]:
    """Two runs of one mechanism: δ(M ⊗ M; 2ε) ≤ 2·δ(M; ε)."""
    def holds(inst: Instance) -> bool:
        split = parts(inst)
        if split is None or split[0].mechanism != split[1].mechanism:
            return True
        both = replace(inst, rate=inst.rate ** 2)
        return both.deltas[notion] <= 2 * split[0].deltas[notion]
    return holds


# --------------------------------------------------------------------------- families

def _iid(n: int, p1: mpq) -> dict:
    out = {}
    for db in product((0, 1), repeat=n):
        w = mpq(1)
        for x in db:
            w *= p1 if x else 1 - p1
        out[db] = w
    return out


def _priors(n: int) -> Iterator[tuple[str, dict]]:
    yield "iid [1/2, 1/2]", _iid(n, mpq(1, 2))
    yield "iid [2/3, 1/3]", _iid(n, mpq(1, 3))
    if n >= 2:
        yield "all records equal", {(0,) * n: mpq(1, 2), (1,) * n: mpq(1, 2)}


def _threshold(t: int) -> Table:
    return lambda db: {sum(db) if sum(db) >= t else "⊥": 1}


def _known(known: tuple[int, ...]) -> Table:
    return lambda db: {tuple(db[j] for j in known): 1}


def _rr_bit(f: Callable[[tuple], int]) -> Table:
    """Randomized response (truth 3/4) of a bit of the database."""
    return lambda db: {f(db): mpq(3, 4), 1 - f(db): mpq(1, 4)}


def _mechanisms(n: int, target: int) -> Iterator[tuple[str, Table]]:
    yield "count", lambda db: {sum(db): 1}
    yield f"count without record {target}", \
        lambda db: {sum(x for j, x in enumerate(db) if j != target): 1}
    yield "or", lambda db: {int(any(db)): 1}
    for t in range(1, n + 1):
        yield f"threshold {t}", _threshold(t)
    yield "rr 3/4 of or", _rr_bit(lambda db: int(any(db)))
    yield "rr 3/4 of and", _rr_bit(lambda db: int(all(db)))


def _knowledges(n: int, target: int) -> Iterator[tuple[str, Table]]:
    others = [j for j in range(n) if j != target]
    for size in range(len(others) + 1):
        for known in combinations(others, size):
            yield f"known {list(known)}", _known(known)


def composition_family(max_records: int) -> Iterator[Instance]:
    """Every pair of the small mechanisms (the differencing pair among them), composed, over
    every prior, target, known set and ε ∈ {0, ln 2}, smallest first."""
    for n in range(1, max_records + 1):
        for pname, prior in _priors(n):
            for target in range(n):
                mechs = list(_mechanisms(n, target))
                for (n1, m1), (n2, m2) in combinations(mechs, 2):
                    for kname, know in _knowledges(n, target):
                        for rate in (1, 2):
                            yield build((0, 1), n, prior, pair_mechanism(m1, m2), know,
                                        target, rate, f"{n1} and {n2}; {pname}; {kname}")


def repeated_family(max_records: int) -> Iterator[Instance]:
    """Two runs of each small mechanism, over every prior, target, known set and ε."""
    for n in range(1, max_records + 1):
        for pname, prior in _priors(n):
            for target in range(n):
                for name, m in _mechanisms(n, target):
                    for kname, know in _knowledges(n, target):
                        for rate in (1, 2):
                            yield build((0, 1), n, prior, pair_mechanism(m, m), know,
                                        target, rate, f"two runs of {name}; {pname}; {kname}")


def repeated_strategy(max_records: int = 3):
    """Hypothesis: two runs of a random mechanism table over two outputs, a random joint
    prior, a random known set."""
    from hypothesis import strategies as st

    @st.composite
    def instances(draw) -> Instance:
        n = draw(st.integers(1, max_records))
        dbs = list(product((0, 1), repeat=n))

        def dist(outcomes: tuple) -> dict:
            w = [draw(st.integers(0, 3)) for _ in outcomes]
            if not any(w):
                w[0] = 1
            return {o: mpq(x, sum(w)) for o, x in zip(outcomes, w, strict=True) if x}

        prior = dist(tuple(dbs))
        table = {db: dist((0, 1)) for db in dbs}
        target = draw(st.integers(0, n - 1))
        others = [j for j in range(n) if j != target]
        known = tuple(j for j in others if draw(st.booleans()))
        rate = draw(st.sampled_from([mpq(1), mpq(2), mpq(3, 2)]))
        return build((0, 1), n, prior, pair_mechanism(table.__getitem__, table.__getitem__),
                     lambda db: {tuple(db[j] for j in known): 1}, target, rate,
                     f"two runs of random tables; known {list(known)}")
    return instances()
