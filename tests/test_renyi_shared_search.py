"""zCDP over a relation searches each distinct pair of laws once and stops a pair as soon as
it cannot be the worst, with the same answer as a full search of every pair: the same
certified lower end and named pair, an upper end no wider, fewer evaluations; and it reports
its progress pair by pair.

The reference is :func:`~verifier.notions.renyi.zcdp.sup_ratio` run to its tolerance on every
ordered pair in enumeration order (the search as it was, pair by pair), the worst taken as the
first pair with the largest lower end.
"""

from __future__ import annotations

from gmpy2 import mpq

from verifier import add_remove_one, geometric, mechanism
from verifier.notions.dp.neighbours import relation_cases
from verifier.notions.renyi.check import distinct_pairs, zcdp_result
from verifier.notions.renyi.divergence import canonical, terms_of
from verifier.notions.renyi.zcdp import sup_ratio

NOISY = mechanism(lambda db: geometric(sum(db), "1/3", lo=0, hi=3))
RELATION = add_remove_one([0, 1, 2], 2)


def reference(pairs, rho):
    lo = hi = mpq(0)
    named, evaluations = None, 0
    for lab, t in pairs:
        b = sup_ratio(t, rho)
        evaluations += b.evaluations
        if named is None or b.lo > lo:
            lo, named = b.lo, lab
        hi = max(hi, b.hi)
    return lo, hi, named, evaluations


def test_shared_search_matches_the_full_search_with_fewer_evaluations():
    pairs, count = distinct_pairs(relation_cases(RELATION, NOISY))
    for rho in (mpq(1), mpq(1, 10)):  # holds; fails
        lo, hi, named, evaluations = reference(pairs, rho)
        r = zcdp_result(pairs, count, rho)
        assert r.lo == lo and r.lo <= r.hi <= hi and r.witness == named
        assert r.holds is (lo <= rho) and r.evaluations < evaluations


def test_equal_laws_up_to_the_outputs_are_searched_once():
    """Swapping the outputs' names, or listing a pair twice, leaves the canonical terms (and
    every divergence) unchanged: one search, whose count of evaluations is a single pair's."""
    from verifier.core.distribution import Dist

    p, q = Dist({0: "3/4", 1: "1/4"}), Dist({0: "1/4", 1: "3/4"})
    t, swapped = terms_of(p, q), terms_of(Dist({1: "3/4", 0: "1/4"}), Dist({1: "1/4", 0: "3/4"}))
    assert canonical(t) == canonical(swapped)
    single = sup_ratio(t, mpq(1))
    calls = []
    r = zcdp_result([({"n": 1}, t), ({"n": 2}, swapped), ({"n": 3}, t)], 3, mpq(1),
                    progress=lambda done, total: calls.append((done, total)))
    assert r.evaluations == single.evaluations and calls == [(1, 1)]
    assert (r.lo, r.hi) == (single.lo, single.hi) and r.witness == {"n": 1}


def test_progress_counts_the_distinct_searches():
    pairs, count = distinct_pairs(relation_cases(RELATION, NOISY))
    calls = []
    zcdp_result(pairs, count, mpq(1), progress=lambda done, total: calls.append((done, total)))
    total = len({canonical(t) for _, t in pairs})
    assert calls == [(k, total) for k in range(1, total + 1)] and 1 < total < len(pairs)


def test_check_shows_the_zcdp_progress_when_asked():
    """--progress was refused for rdp/zcdp; it now shows zcdp's searches (stderr only)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent / "hostile"))
    from harness import assert_verdict, invoke

    spec = Path(__file__).resolve().parents[1] / "examples" / "renyi_randomized_response.toml"
    forced = invoke(["check", spec, "--progress"])
    assert_verdict(forced, 0)
    assert "zcdp: pairs searched" in forced.stderr
    plain = invoke(["check", spec, "--no-progress"])
    assert plain.stderr == "" and plain.stdout == forced.stdout
