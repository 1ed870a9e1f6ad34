"""Families of small instances: exhaustive by size, random (Hypothesis), and shrinking moves.

The exhaustive family covers what the seed lemmas quantify over and the theorem records of
``proofs/`` did not: besides i.i.d. priors, **correlated data** (explicit joint priors: all
records equal; a mixture of two i.i.d. laws) and **randomized background knowledge** (a noisy
view of one record), with counts, thresholded counts, randomized response and an OR query,
every target and every set of known indices, at ε ∈ {0, ln 2}. Instances come smallest first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from itertools import combinations, product

from gmpy2 import mpq

from verifier.search.small import Instance, law

__all__ = ["build", "exhaustive", "strategy", "shrinks", "BOTTOM_OUT"]

BOTTOM_OUT = "⊥"
Table = Callable[[tuple], dict]


def build(values: tuple, n: int, prior: dict, mech: Table, know: Table, target: int,
          rate: object = 1, label: str = "") -> Instance:
    """An instance from a prior over databases and kernels for M and ζ."""
    dbs = list(product(values, repeat=n))
    return Instance(values, n, law(prior), tuple((db, law(mech(db))) for db in dbs),
                    tuple((db, law(know(db))) for db in dbs), target, mpq(rate), label)


def _iid(values: tuple, n: int, p: tuple) -> dict:
    out = {}
    for db in product(values, repeat=n):
        w = mpq(1)
        for x in db:
            w *= p[values.index(x)]
        if w:
            out[db] = w
    return out


def _priors(n: int) -> Iterator[tuple[str, dict]]:
    v = (0, 1)
    for p in ((mpq(1, 2), mpq(1, 2)), (mpq(2, 3), mpq(1, 3))):
        yield f"iid {[str(x) for x in p]}", _iid(v, n, p)
    if n >= 2:
        yield "all records equal", {(0,) * n: mpq(1, 2), (1,) * n: mpq(1, 2)}
        low, high = _iid(v, n, (mpq(3, 4), mpq(1, 4))), _iid(v, n, (mpq(1, 4), mpq(3, 4)))
        yield "mixture of two iid laws", {db: (low[db] + high[db]) / 2 for db in low}


def _threshold(t: int) -> Table:
    return lambda db: {sum(db) if sum(db) >= t else BOTTOM_OUT: 1}


def _known(known: tuple) -> Table:
    return lambda db: {tuple(db[j] for j in known): 1}


def _noisy(j: int) -> Table:
    """ζ(D) = D_j with probability 3/4, else the other bit: randomized knowledge."""
    return lambda db: {db[j]: mpq(3, 4), 1 - db[j]: mpq(1, 4)}


def _mechanisms(n: int) -> Iterator[tuple[str, Table]]:
    yield "count", lambda db: {sum(db): 1}
    for t in range(1, n + 1):
        yield f"threshold {t}", _threshold(t)
    yield "or", lambda db: {int(any(db)): 1}

    def rr(db: tuple) -> dict:
        out = {}
        for rep in product((0, 1), repeat=len(db)):
            w = mpq(1)
            for x, y in zip(db, rep, strict=True):
                w *= mpq(3, 4) if x == y else mpq(1, 4)
            out[rep] = w
        return out
    yield "randomized response 3/4", rr


def _knowledges(n: int, target: int) -> Iterator[tuple[str, Table]]:
    others = [j for j in range(n) if j != target]
    for size in range(len(others) + 1):
        for known in combinations(others, size):
            yield f"known {list(known)}", _known(known)
    for j in others:
        yield f"noisy view of record {j}", _noisy(j)


def exhaustive(max_records: int) -> Iterator[Instance]:
    """Every instance of the family with at most ``max_records`` binary records, by size."""
    for n in range(1, max_records + 1):
        for pname, prior in _priors(n):
            for mname, mech in _mechanisms(n):
                for target in range(n):
                    for kname, know in _knowledges(n, target):
                        for rate in (1, 2):
                            yield build((0, 1), n, prior, mech, know, target, rate,
                                        f"{mname}; {pname}; {kname}")


def strategy(max_records: int = 3):
    """A Hypothesis strategy of random instances: any joint prior (so correlated data), any
    mechanism table over three outputs, any randomized ζ over two background values."""
    from hypothesis import strategies as st

    weights: dict[int, object] = {}  # one strategy per number of outcomes, built once

    @st.composite
    def instances(draw) -> Instance:
        n = draw(st.integers(1, max_records))
        values = (0, 1)
        dbs = list(product(values, repeat=n))

        def dist(outcomes: tuple) -> dict:
            k = len(outcomes)
            w = list(draw(weights.setdefault(k, st.tuples(*[st.integers(0, 3)] * k))))
            if not any(w):
                w[0] = 1  # all zero: a point mass on the first outcome
            return {o: mpq(x, sum(w)) for o, x in zip(outcomes, w, strict=True) if x}

        prior = dist(tuple(dbs))
        mech = {db: dist((0, 1, 2)) for db in dbs}
        know = {db: dist(("x", "y")) for db in dbs}
        target = draw(st.integers(0, n - 1))
        rate = draw(st.sampled_from([mpq(1), mpq(2), mpq(3, 2)]))
        return build(values, n, prior, mech.__getitem__, know.__getitem__, target, rate,
                     "random tables")
    return instances()


# ------------------------------------------------------------------------- shrinking moves

def _retable(inst: Instance, f: Callable[[tuple], tuple], keep: Callable[[tuple], bool],
             n: int, target: int, mech_map: Callable[[Hashable], Hashable] = lambda o: o,
             know_map: Callable[[Hashable], Hashable] = lambda b: b) -> Instance:
    """Databases mapped by ``f`` (prior mass moved along), M and ζ read at the databases
    ``keep`` selects, outputs and background values relabelled."""
    prior: dict = {}
    for db, p in inst.prior:
        assert isinstance(db, tuple)  # θ's outcomes are databases
        prior[f(db)] = prior.get(f(db), 0) + p
    mech, know = {}, {}
    for (db, row), (_, krow) in zip(inst.mechanism, inst.knowledge, strict=True):
        if keep(db):
            mech[f(db)] = _relabel(row, mech_map)
            know[f(db)] = _relabel(krow, know_map)
    return Instance(inst.values, n, law(prior), tuple(mech.items()), tuple(know.items()),
                    target, inst.rate, inst.label)


def _relabel(row, g) -> tuple:
    out: dict = {}
    for o, p in row:
        out[g(o)] = out.get(g(o), 0) + p
    return law(out)


def _simpler_laws(row: tuple) -> Iterator[tuple]:
    """The uniform law on the same support, and each outcome's mass moved to another."""
    outcomes = [o for o, _ in row]
    if len(outcomes) > 1:
        yield law({o: mpq(1, len(outcomes)) for o in outcomes})
        for i, o in enumerate(outcomes):
            rest = dict(row)
            mass = rest.pop(o)
            other = outcomes[0] if i else outcomes[1]
            rest[other] += mass
            yield law(rest)


def _drop(j: int) -> Callable[[tuple], tuple]:
    return lambda db: db[:j] + db[j + 1:]


def _holds_at(j: int, value: Hashable) -> Callable[[tuple], bool]:
    return lambda db: db[j] == value


def shrinks(inst: Instance) -> Iterator[Instance]:
    """Candidate smaller instances: one record fewer, two outputs or background values
    merged, or one law made simpler."""
    first = inst.values[0]
    for j in range(inst.n):
        if j == inst.target or inst.n == 1:
            continue
        yield _retable(inst, _drop(j), _holds_at(j, first), inst.n - 1,
                       inst.target - (j < inst.target))
    def ident(db: tuple) -> tuple:
        return db

    def everything(db: tuple) -> bool:
        return True

    for pool, is_mech in ((sorted(inst.outputs(), key=repr), True),
                          (sorted(inst.backgrounds(), key=repr), False)):
        for a, b in combinations(pool, 2):
            g = lambda o, a=a, b=b: a if o == b else o  # noqa: E731
            yield _retable(inst, ident, everything, inst.n, inst.target,
                           g if is_mech else (lambda o: o), (lambda o: o) if is_mech else g)
    for simpler in _simpler_laws(inst.prior):
        yield Instance(inst.values, inst.n, simpler, inst.mechanism, inst.knowledge,
                       inst.target, inst.rate, inst.label)
    for which in ("mechanism", "knowledge"):
        table = getattr(inst, which)
        for k, (db, row) in enumerate(table):
            for simpler in _simpler_laws(row):
                new = table[:k] + ((db, simpler),) + table[k + 1:]
                yield Instance(inst.values, inst.n, inst.prior,
                               new if which == "mechanism" else inst.mechanism,
                               new if which == "knowledge" else inst.knowledge,
                               inst.target, inst.rate, inst.label)
